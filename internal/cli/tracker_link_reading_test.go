package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkReadsOneWay: `link A B --type blocks` means A waits for B (seed
// 001: to_id must complete before from_id). Every text the CLI prints
// about that link says so in those words, and none says "A blocks B" or
// "blocked by", which read the other way round.
func TestLinkReadsOneWay(t *testing.T) {
	t.Parallel()
	p := newProj(t)
	a := p.js("issue", "create", "Waiting issue").str("id")
	b := p.js("issue", "create", "Prerequisite").str("id")
	s := p.js("spec", "create", "The spec").str("id")

	backwards := func(what, out string) {
		t.Helper()
		for _, bad := range []string{"blocks " + b, "blocked by", "← blocks", "→ blocks"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s says %q, which reads backwards:\n%s", what, bad, out)
			}
		}
	}
	out := p.human("link", a, b, "--type", "blocks")
	if !strings.Contains(out, a+" waits for "+b) {
		t.Errorf("link said %q; want %q", out, a+" waits for "+b)
	}
	backwards("link", out)
	p.human("link", a, s, "--type", "implements")

	out = p.human("issue", "show", a)
	for _, want := range []string{"waits for:\n  " + b, "this issue waits for " + b, "this issue implements " + s} {
		if !strings.Contains(out, want) {
			t.Errorf("issue show %s: want %q in\n%s", a, want, out)
		}
	}
	backwards("issue show "+a, out)
	out = p.human("issue", "show", b)
	if !strings.Contains(out, a+" waits for this issue") {
		t.Errorf("issue show %s: want %q in\n%s", b, a+" waits for this issue", out)
	}
	backwards("issue show "+b, out)
	if out = p.human("spec", "show", s); !strings.Contains(out, a+" implements this spec") {
		t.Errorf("spec show: want %q in\n%s", a+" implements this spec", out)
	}
	out = p.human("blocked")
	if !strings.Contains(out, "waits for") || !strings.Contains(out, b) {
		t.Errorf("blocked said %q", out)
	}
	backwards("blocked", out)
	for _, cmd := range [][]string{{"link", "--help"}, {"ready", "--help"}, {"blocked", "--help"}} {
		out := p.ok(cmd...)
		if !strings.Contains(out, "blocks           A waits for B") {
			t.Errorf("%s does not say that `link A B --type blocks` means A waits for B:\n%s", strings.Join(cmd, " "), out)
		}
	}
}

// TestREADMELinksReadOneWay: the README says the blocking links in the
// same words as the CLI.
func TestREADMELinksReadOneWay(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	if !strings.Contains(readme, "`sudocode link A B --type blocks` means A waits for B") {
		t.Error("the README does not say that `sudocode link A B --type blocks` means A waits for B")
	}
	for _, bad := range []string{"A blocks B", "`blocks` B"} {
		if strings.Contains(readme, bad) {
			t.Errorf("the README says %q, which reads backwards", bad)
		}
	}
}
