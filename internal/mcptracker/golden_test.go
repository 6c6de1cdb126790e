package mcptracker_test

import (
	"slices"
	"testing"

	"github.com/sudocode/sudocode/internal/goldentest"
	"github.com/sudocode/sudocode/internal/mcptracker"
)

// seedTools are the 22 tools the tracker's requirement names, in its order
// (docs/servers.md#tracker-tools).
var seedTools = []string{
	"ready", "list_issues", "show_issue", "create_issue", "update_issue", "close_issue", "blocked_issues",
	"list_specs", "show_spec", "create_spec",
	"link",
	"add_feedback", "list_feedback", "show_feedback", "acknowledge_feedback", "resolve_feedback",
	"wontfix_feedback", "stale_feedback", "relocate_feedback",
	"stats", "status", "init",
}

// extraTools are the tools beyond the requirement's.
var extraTools = []string{"search", "update_spec", "unlink", "create_issues", "update_issues", "add_comment"}

// TestToolsGolden pins tools/list, prompts/list and the resources and
// resource templates: a change of a name, description, input or output
// schema, or annotation is a visible diff of testdata/tools.golden.json.
// Refresh it with: go test ./internal/mcptracker -run TestToolsGolden -update
func TestToolsGolden(t *testing.T) {
	f := connect(t, mcptracker.Options{})
	tools := goldentest.Server(t, "testdata/tools.golden.json", f.cs).Tools

	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		if tool.Title == "" || tool.Description == "" {
			t.Errorf("%s: title and description required", tool.Name)
		}
		a := tool.Annotations
		if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: explicit annotations with openWorldHint false required, got %+v", tool.Name, a)
			continue
		}
		if !a.ReadOnlyHint && a.DestructiveHint == nil {
			t.Errorf("%s: a tool that changes things must say whether it is destructive", tool.Name)
		}
	}
	for _, n := range append(slices.Clone(seedTools), extraTools...) {
		if !slices.Contains(names, n) {
			t.Errorf("tools/list lacks %s", n)
		}
	}
	if len(names) != len(seedTools)+len(extraTools) {
		t.Errorf("tools/list = %v: %d tools, want %d", names, len(names), len(seedTools)+len(extraTools))
	}
}
