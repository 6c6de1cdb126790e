package rulesets_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
)

func TestValidateName(t *testing.T) {
	for _, n := range []string{"python_style_guide", "api_v2_rules", "test123", "a", "9", "my_ruleset", strings.Repeat("a", rulesets.MaxNameLen)} {
		if err := rulesets.ValidateName(n); err != nil {
			t.Errorf("%q refused: %v", n, err)
		}
	}
	for _, n := range []string{"Python-Style", "api__rules", "_private", "style-guide", "private_", "", "../x", "a__b", "_x",
		"a b", "Ab", "é", "a\n", strings.Repeat("a", rulesets.MaxNameLen+1)} {
		err := rulesets.ValidateName(n)
		want := fmt.Sprintf("invalid ruleset name '%s': must use snake_case (lowercase letters, numbers, and underscores only)", n)
		if err == nil || err.Error() != want || !fault.Is(err, fault.Invalid) {
			t.Errorf("%q: %v", n, err)
		}
	}
}

// On a large library the delete error lists the first names and counts
// the rest, so that the error stays small.
func TestDeleteErrorListIsCapped(t *testing.T) {
	ctx := context.Background()
	lib := newLibrary(t)
	for i := range 105 {
		d, m := "d", "m"
		if _, err := lib.Upsert(ctx, rulesets.Patch{Name: fmt.Sprintf("r%03d", i), Description: &d, Markdown: &m}); err != nil {
			t.Fatal(err)
		}
	}
	err := lib.Delete(ctx, "absent")
	msg := err.Error()
	if !strings.HasPrefix(msg, "ruleset 'absent' not found. Existing rulesets: [r000, r001, ") ||
		!strings.HasSuffix(msg, "r099, ... and 5 more]") {
		t.Fatalf("message = %s", msg)
	}
}

func TestCreateRefusesTakenName(t *testing.T) {
	ctx := context.Background()
	lib := newLibrary(t)
	r := rulesets.Ruleset{Name: "go_conventions", Description: "d", Markdown: "m"}
	if err := lib.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	err := lib.Create(ctx, r)
	want := "ruleset 'go_conventions' already exists. Please choose a different name. Existing rulesets: [go_conventions]"
	if err == nil || err.Error() != want || !fault.Is(err, fault.Conflict) {
		t.Fatalf("err = %v", err)
	}
	if err := lib.Create(ctx, rulesets.Ruleset{Name: "x", Markdown: "m"}); err == nil || err.Error() != "description is required for new rulesets" {
		t.Fatalf("err = %v", err)
	}
}

func newLibrary(t *testing.T) rulesets.Library {
	store, err := sqlitestore.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return rulesets.Library{Store: store}
}
