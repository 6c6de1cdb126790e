package cli_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestRulesetsScope: put sets, keeps and clears a ruleset's scope; get
// shows it in the front matter and, with --json, as fields present only
// when set.
func TestRulesetsScope(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	l.ok("", "put", "api_rules", "-d", "API", "-f", writeFile(t, "# API"), "--glob", "pkg/api/**", "--glob", "**/*.proto",
		"--always", "--targets", "claude,cursor")
	l.ok("", "put", "api_rules", "-d", "API, v2") // keeps the scope
	l.ok("---\nname: api_rules\ndescription: API, v2\ntags: []\nglobs: [\"pkg/api/**\", \"**/*.proto\"]\nalways: true\n"+
		"targets: [claude, cursor]\ncreated_at: TIME\nlast_modified: TIME\n---\n\n# API\n", "get", "api_rules")
	var got map[string]any
	json.Unmarshal([]byte(l.ok("", "get", "api_rules", "--json")), &got)
	if keys := jsonKeys(t, got); !slices.Equal(keys, []string{"always", "created_at", "description", "globs", "last_modified", "markdown", "name", "tags", "targets"}) {
		t.Errorf("get --json keys of a scoped ruleset = %v", keys)
	}
	l.ok("", "put", "api_rules", "--glob=", "--always=false", "--targets=")
	got = map[string]any{}
	json.Unmarshal([]byte(l.ok("", "get", "api_rules", "--json")), &got)
	if keys := jsonKeys(t, got); !slices.Equal(keys, []string{"created_at", "description", "last_modified", "markdown", "name", "tags"}) {
		t.Errorf("get --json keys after clearing the scope = %v", keys)
	}
	l.fail(2, `invalid target "vim": must be one of claude, agents, cursor, copilot, gemini, windsurf`, "put", "api_rules", "--targets", "vim")
}
