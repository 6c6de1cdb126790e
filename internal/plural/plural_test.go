package plural_test

import (
	"testing"

	"github.com/sudocode/sudocode/internal/plural"
)

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 branches"}, {1, "1 branch"}, {2, "2 branches"}, {-1, "-1 branches"}} {
		if got := plural.Count(c.n, "branch", "branches"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
