package mcprulesets_test

import (
	"fmt"
	"testing"

	"github.com/sudocode/sudocode/internal/goldentest"
)

// TestToolsGolden pins tools/list and the resource templates: a change of a
// name, description, input or output schema, or annotation is a visible
// diff of testdata/tools.golden.json. Refresh it with:
// go test ./internal/mcprulesets -run TestToolsGolden -update
func TestToolsGolden(t *testing.T) {
	f := connect(t, stores[0].open(t))
	var names []string
	for _, tool := range goldentest.Server(t, "testdata/tools.golden.json", f.cs).Tools {
		names = append(names, tool.Name)
		if tool.Title == "" || tool.Annotations == nil || tool.Annotations.OpenWorldHint == nil {
			t.Errorf("%s: title and explicit annotations required", tool.Name)
		}
	}
	// The SDK lists tools by name, whatever the registration order.
	if want := "[delete_ruleset diff_ruleset_versions get_ruleset get_ruleset_version import_rules list_rulesets resolve_rules restore_ruleset search_rulesets upsert_ruleset]"; fmt.Sprint(names) != want {
		t.Fatalf("tools = %v, want %s", names, want)
	}
}
