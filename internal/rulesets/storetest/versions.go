package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// testVersions: every change is a numbered version that keeps the ruleset
// as it left it (scope included; a deletion keeps nothing), a past version
// can be read, diffed and restored, and a restore is a new change by its
// author that brings back a deleted ruleset too.
func testVersions(t *testing.T, s rulesets.Store) {
	ctx := context.Background()
	clock := t0
	lib := rulesets.Library{Store: s, Clock: func() time.Time { clock = clock.Add(time.Minute); return clock }}
	alice, bob, carol := lib, lib, lib
	alice.Actor, bob.Actor, carol.Actor = "alice", "bob", "carol"
	yes := true
	if _, err := alice.Upsert(ctx, rulesets.Patch{Name: "team", Description: str("Team"), Markdown: str("# Team\n\nBe kind.\nBe brief."),
		Tags: []string{"team"}, SetTags: true, Always: &yes}); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Upsert(ctx, rulesets.Patch{Name: "team", Markdown: str("# Team\n\nBe kind.\nBe very brief."), Globs: []string{"src/**"}, SetGlobs: true}); err != nil {
		t.Fatal(err)
	}
	if err := bob.Delete(ctx, "team"); err != nil {
		t.Fatal(err)
	}
	v1, c1, err := lib.Version(ctx, "team", 1)
	if err != nil || v1.Markdown != "# Team\n\nBe kind.\nBe brief." || !v1.Always || len(v1.Globs) != 0 || c1.By != "alice" || c1.Version != 1 {
		t.Fatalf("version 1: %+v %+v %v", v1, c1, err)
	}
	if v2, _, err := lib.Version(ctx, "team", 2); err != nil || strings.Join(v2.Globs, ",") != "src/**" || v2.Description != "Team" {
		t.Fatalf("version 2: %+v %v", v2, err)
	}
	_, _, err = lib.Version(ctx, "team", 3) // the deletion
	if !fault.Is(err, fault.NotFound) || err.Error() != "version 3 of ruleset 'team' not found" || fault.HintOf(err) != "versions kept: 1 to 2 (see the ruleset's history; a deletion has no content)" {
		t.Fatalf("version 3 (a deletion): %v (%s)", err, fault.HintOf(err))
	}
	diff, err := lib.Diff(ctx, "team", 1, 2)
	if err != nil || !strings.Contains(diff, "\n-Be brief.\n+Be very brief.\n") || !strings.Contains(diff, "\n+globs: [\"src/**\"]\n") ||
		!strings.HasPrefix(diff, "--- team version 1 (created by alice, 2025-10-29 10:31:00)\n+++ team version 2 (updated by bob, 2025-10-29 10:32:00)\n") {
		t.Fatalf("diff 1..2:\n%s\n%v", diff, err)
	}
	if _, err := lib.Diff(ctx, "team", 1, 0); !fault.Is(err, fault.NotFound) {
		t.Fatalf("diff against a deleted ruleset's current state: %v", err)
	}
	// Restoring version 1 brings the deleted ruleset back, as carol's change.
	if created, err := carol.Restore(ctx, "team", 1); err != nil || !created {
		t.Fatalf("restore: %v, created %v", err, created)
	}
	got := mustGet(t, s, "team")
	if got.Markdown != v1.Markdown || !got.Always || len(got.Globs) != 0 || strings.Join(got.Tags, ",") != "team" {
		t.Fatalf("restored: %+v", got)
	}
	h := mustHistory(t, s, "team", 1)
	if h[0].By != "carol" || h[0].Action != rulesets.ActionRestored || h[0].Restored != 1 || h[0].Version != 4 {
		t.Fatalf("the restore's change: %+v", h[0])
	}
	if diff, err := lib.Diff(ctx, "team", 1, 0); err != nil || strings.Contains(diff, "Be very brief") || !strings.Contains(diff, "-last_modified: ") {
		t.Fatalf("diff of version 1 and the restored ruleset:\n%s\n%v", diff, err)
	}
	if _, err := carol.Restore(ctx, "team", 9); !fault.Is(err, fault.NotFound) {
		t.Fatalf("restore of a missing version: %v", err)
	}
}
