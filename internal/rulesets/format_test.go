package rulesets_test

import (
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// The scope shows in the front matter only when set: an unscoped ruleset
// is the specification's document exactly.
func TestFormatDocumentScope(t *testing.T) {
	at := time.Date(2025, 10, 29, 10, 30, 0, 0, time.UTC)
	r := rulesets.Ruleset{Name: "api_rules", Description: "API", Tags: []string{"api", "rest"}, Markdown: "# API", CreatedAt: at, LastModified: at}
	head := "---\nname: api_rules\ndescription: API\ntags: [api, rest]\n"
	tail := "created_at: 2025-10-29 10:30:00\nlast_modified: 2025-10-29 10:30:00\n---\n\n# API"
	if got := rulesets.FormatDocument(r); got != head+tail {
		t.Fatalf("unscoped:\n%s", got)
	}
	r.Scope = rulesets.Scope{Globs: []string{"pkg/api/**", "**/*.proto"}, Always: true, Targets: []string{"claude", "cursor"}}
	want := head + "globs: [\"pkg/api/**\", \"**/*.proto\"]\nalways: true\ntargets: [claude, cursor]\n" + tail
	if got := rulesets.FormatDocument(r); got != want {
		t.Fatalf("scoped:\n%s\nwant:\n%s", got, want)
	}
	r.Scope = rulesets.Scope{Always: true}
	if got := rulesets.FormatDocument(r); got != head+"always: true\n"+tail {
		t.Fatalf("always only:\n%s", got)
	}
}
