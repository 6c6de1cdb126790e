package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mkdirs(t *testing.T, root string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckAllowRoot(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	mkdirs(t, home, ".ssh", "shared", ".aws")
	for _, bad := range []string{home, home + "/.ssh", home + "/.ssh/keys", home + "/.aws", "/"} {
		if err := CheckAllowRoot(bad, home); err == nil || !strings.Contains(err.Error(), "credential store") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if err := CheckAllowRoot(home+"/shared", home); err != nil {
		t.Errorf("shared: %v", err)
	}
}

func TestGapsNameWhatIsMissing(t *testing.T) {
	for _, c := range []struct {
		r    Report
		want []string
	}{
		{Report{Landlock: "enforced", ABI: 7, Containment: "pid-namespace"}, nil},
		{Report{Landlock: "enforced", ABI: 3, Missing: []string{"network", "scoping"}, Containment: "pid-namespace"},
			[]string{"ABI 3 has no network rules", "TCP is not restricted", "no scoping", "signals"}},
		{Report{Landlock: "unavailable", Reason: "disabled", Containment: "subreaper"},
			[]string{"Landlock is unavailable (disabled)", "subreaper"}},
	} {
		g := c.r.Gaps()
		if (g == "") != (c.want == nil) {
			t.Errorf("%+v: %q", c.r, g)
		}
		for _, w := range c.want {
			if !strings.Contains(g, w) {
				t.Errorf("%+v: %q lacks %q", c.r, g, w)
			}
		}
	}
}
