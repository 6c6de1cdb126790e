package sqlitestore_test

import (
	"database/sql"
	"path/filepath"

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

// A store made before rulesets had a scope opens, gains the columns, and
// its rulesets read back unscoped.
func TestUpgradeAddsScope(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlitestore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE rulesets (name TEXT PRIMARY KEY, description TEXT NOT NULL, tags TEXT NOT NULL,
		markdown TEXT NOT NULL, created_at TEXT NOT NULL, last_modified TEXT NOT NULL) WITHOUT ROWID;
		INSERT INTO rulesets VALUES ('old_rules', 'd', '["go"]', 'm', '2025-10-29T10:30:00Z', '2025-10-29T10:30:00Z')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := open(t, dir)
	r, err := s.Get(context.Background(), "old_rules")
	if err != nil || !r.Scope.IsZero() || r.Description != "d" {
		t.Fatalf("old ruleset after the upgrade: %+v, %v", r, err)
	}
	open(t, dir) // a second open finds the columns there
}
