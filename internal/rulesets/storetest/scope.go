package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// testScope: a scope is stored with the ruleset, kept by updates that do
// not name it, changed field by field, and cleared back to nothing.
func testScope(t *testing.T, s rulesets.Store) {
	ctx := context.Background()
	yes, no := true, false
	p := full("api_rules", "API", "# API", "api")
	p.Globs, p.SetGlobs, p.Always, p.Targets, p.SetTargets = []string{"pkg/api/**", "**/*.proto"}, true, &yes, []string{"claude", "cursor"}, true
	mustUpsert(t, s, p, t0)
	want := rulesets.Scope{Globs: []string{"pkg/api/**", "**/*.proto"}, Always: true, Targets: []string{"claude", "cursor"}}
	check := func(step string, want rulesets.Scope) {
		t.Helper()
		if got := mustGet(t, s, "api_rules").Scope; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: scope %+v, want %+v", step, got, want)
		}
	}
	check("create", want)
	mustUpsert(t, s, rulesets.Patch{Name: "api_rules", Description: str("API v2")}, t0)
	check("update of the description", want)
	mustUpsert(t, s, rulesets.Patch{Name: "api_rules", Always: &no}, t0)
	want.Always = false
	check("always cleared", want)
	mustUpsert(t, s, rulesets.Patch{Name: "api_rules", Globs: []string{}, SetGlobs: true, Targets: []string{"agents"}, SetTargets: true}, t0)
	check("globs cleared, targets changed", rulesets.Scope{Targets: []string{"agents"}})
	mustUpsert(t, s, rulesets.Patch{Name: "api_rules", Targets: []string{}, SetTargets: true}, t0)
	if got := mustGet(t, s, "api_rules"); !got.Scope.IsZero() || got.Description != "API v2" {
		t.Fatalf("cleared scope: %+v", got)
	}
	// Create keeps a scope too, and an unscoped create has none.
	r := rulesets.Ruleset{Name: "go_rules", Description: "d", Markdown: "m", Tags: []string{}, CreatedAt: t0, LastModified: t0,
		Scope: rulesets.Scope{Globs: []string{"**/*.go"}}}
	if err := s.Create(ctx, r, "alice"); err != nil {
		t.Fatal(err)
	}
	check2 := mustGet(t, s, "go_rules")
	if fmt.Sprint(check2.Scope) != fmt.Sprint(r.Scope) {
		t.Fatalf("created scope %+v", check2.Scope)
	}
	h := mustHistory(t, s, "api_rules", 10)
	if got := describe(h[len(h)-1:]); got != "10:30:00  created description,markdown,tags,globs,always,targets" {
		t.Fatalf("history of the scoped create: %q", got)
	}
	if got := describe(h[1:2]); got != "10:30:00  updated globs,targets" {
		t.Fatalf("history of a scope update: %q", got)
	}
}
