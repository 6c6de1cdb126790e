package rulesets_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// TestToolsGolden pins tools/list: a change of a name, description, schema
// or annotation is a visible diff of testdata/tools.golden.json. Refresh it
// with: go test ./internal/mcpserver/rulesets -run TestToolsGolden -update
func TestToolsGolden(t *testing.T) {
	f := connect(t, stores[0].open(t))
	res, err := f.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const path = "testdata/tools.golden.json"
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Fatalf("tools/list drifted from %s; if intended, rerun with -update and commit the diff.\ngot:\n%s", path, got)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Title == "" || tool.Annotations == nil || tool.Annotations.OpenWorldHint == nil {
			t.Errorf("%s: title and explicit annotations required", tool.Name)
		}
	}
	// The SDK lists tools by name, whatever the registration order.
	if want := "[delete_ruleset get_ruleset list_rulesets search_rulesets upsert_ruleset]"; fmt.Sprint(names) != want {
		t.Fatalf("tools = %v, want %s", names, want)
	}
}
