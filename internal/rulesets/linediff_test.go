package rulesets_test

import (
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets"
)

func TestUnifiedDiff(t *testing.T) {
	a := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven"
	b := "one\n2\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve"
	want := "--- a\n+++ b\n@@ -1,5 +1,5 @@\n one\n-two\n+2\n three\n four\n five\n@@ -9,3 +9,4 @@\n nine\n ten\n eleven\n+twelve\n"
	if got := rulesets.UnifiedDiff("a", "b", a, b); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := rulesets.UnifiedDiff("a", "b", a, a); got != "" {
		t.Fatalf("equal texts: %q", got)
	}
}
