package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// export and import count what they moved in words that agree with the
// numbers: "1 issue", "2 issues".
func TestSyncCountsAgree(t *testing.T) {
	p := newProj(t)
	p.ok("issue", "create", "One")
	out := filepath.Join(t.TempDir(), "out")
	if got := p.run("export", "--dir", out).stdout; !strings.HasPrefix(got, "Exported 1 issue, 0 specs, 0 feedback to ") {
		t.Errorf("export said %q", got)
	}
	p.ok("issue", "create", "Two")
	out2 := filepath.Join(t.TempDir(), "out2")
	if got := p.run("export", "--dir", out2).stdout; !strings.HasPrefix(got, "Exported 2 issues, 0 specs, 0 feedback to ") {
		t.Errorf("export said %q", got)
	}
}
