package sqlitestore_test

import (
	"context"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
	"github.com/sudocode/sudocode/internal/rulesets/storetest"
)

func openB(t testing.TB) *sqlitestore.Store { return open(t, t.TempDir()) }

func open(t testing.TB, dir string) *sqlitestore.Store {
	t.Helper()
	s, err := sqlitestore.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) rulesets.Store { return open(t, t.TempDir()) })
}

// Two stores on one directory are two server processes sharing the
// embedded store: each sees the other's writes, and racing creates of one
// name still create it once.
func TestTwoStoresOnOneDirectory(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	storetest.RunShared(t, a, b)
}
