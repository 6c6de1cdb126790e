package wstest

import "testing"

// Set sets *v to val for the rest of the test (a package variable a test
// shortens or points elsewhere).
func Set[T any](t testing.TB, v *T, val T) {
	old := *v
	*v = val
	t.Cleanup(func() { *v = old })
}
