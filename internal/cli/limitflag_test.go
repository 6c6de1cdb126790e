package cli_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestLimitZeroListsAll: --limit 0 asks a list for every item, past its
// default size (ready's is 10), and a negative limit is refused as a usage
// error naming the flag.
func TestLimitZeroListsAll(t *testing.T) {
	p := newProj(t)
	for i := range 12 {
		p.ok("issue", "create", fmt.Sprint("item ", i))
	}
	if n := len(p.js("ready").list("issues")); n != 10 {
		t.Errorf("ready lists %d issues by default, want 10", n)
	}
	if n := len(p.js("ready", "--limit", "0").list("issues")); n != 12 {
		t.Errorf("ready --limit 0 lists %d issues, want all 12", n)
	}
	l := p.js("issue", "list", "--limit", "0")
	if n := len(l.list("issues")); n != 12 || l.num("total") != 12 {
		t.Errorf("issue list --limit 0: %d of %d issues, want all 12", n, l.num("total"))
	}
	if n := len(p.js("issue", "list", "--limit", "5").list("issues")); n != 5 {
		t.Errorf("issue list --limit 5 lists %d", n)
	}
	r := p.run("issue", "list", "--limit", "-1")
	if r.code == 0 || !strings.Contains(r.stderr, "--limit") || !strings.Contains(r.stderr, "0 for all") {
		t.Errorf("--limit -1: exit %d, stderr %q; want a usage error naming --limit", r.code, r.stderr)
	}
}
