package policy

import (
	"strings"
	"testing"
	"time"
)

// TestSlowInputs guards against pathological inputs (nesting, brace
// bombs, huge lines) making a check slow.
func TestSlowInputs(t *testing.T) {
	f := newFixture(t)
	for _, c := range []string{
		strings.Repeat("eval ", 10000) + "x",
		strings.Repeat("bash -c '", 50) + "x",
		strings.Repeat("env -S '", 200) + "x",
		strings.Repeat("(", 5000) + "x" + strings.Repeat(")", 5000),
		strings.Repeat("$(", 3000) + "x" + strings.Repeat(")", 3000),
		strings.Repeat("cat a; ", 50000),
		"echo " + strings.Repeat("{a,b}", 40),
		"cat " + strings.Repeat("{a,b}", 40),
		strings.Repeat("x", 1<<20),
		strings.Repeat("\"", 100001),
		strings.Repeat("cat */*/*/*/* ", 200),
		strings.Repeat("find . -exec ", 3000),
		strings.Repeat("env ", 30000) + "x",
		strings.Repeat("alias a='", 100),
		strings.Repeat("bash <<EOF\n", 100),
		"eval \"" + strings.Repeat("eval ", 1000) + "\"",
	} {
		start := time.Now()
		check(f.root, c, nil, false)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%.40q took %v", c, d)
		}
	}
}
