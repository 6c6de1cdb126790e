package policy

import (
	"strings"
	"testing"
)

// pathological are inputs (nesting, brace bombs, huge lines) that a naive
// analysis would take exponential time or stack on.
var pathological = []string{
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
}

// TestSlowInputs: every pathological input gets a verdict (the test's own
// timeout catches one that never ends); how long each takes is
// BenchmarkSlowInputs'.
func TestSlowInputs(t *testing.T) {
	f := newFixture(t)
	for _, c := range pathological {
		check(f.root, c, nil, false)
	}
}

// BenchmarkSlowInputs measures the pathological inputs, all of them per
// iteration (a check of each is expected well under a second).
func BenchmarkSlowInputs(b *testing.B) {
	f := newFixture(b)
	for b.Loop() {
		for _, c := range pathological {
			check(f.root, c, nil, false)
		}
	}
}
