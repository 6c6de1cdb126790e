package cli_test

import (
	"strings"
	"testing"
)

// init run again says so; status prints ids as words, not a Go slice.
func TestInitAgainAndStatusText(t *testing.T) {
	p := newProj(t)
	if out := p.human("init"); !strings.HasPrefix(out, "Already initialised: ") {
		t.Errorf("second init said %q", out)
	}
	p.ok("issue", "create", "first")
	for _, args := range [][]string{{"status"}, {"status", "--verbose"}} {
		if out := p.human(args...); strings.ContainsAny(out, "[]") {
			t.Errorf("%v said %q", args, out)
		}
	}
	if out := p.human("status", "--verbose"); !strings.Contains(out, "Ready    1  sudocode-") {
		t.Errorf("status --verbose said %q", out)
	}
}
