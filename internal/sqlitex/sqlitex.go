// Package sqlitex opens the SQLite databases of the project's stores the
// same way: WAL, a busy timeout, immediate write transactions, and a schema
// created safely when several processes open a new database at once.
package sqlitex

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver; its errors carry the SQLite code
	sqlite3 "modernc.org/sqlite/lib"
)

// busyTimeout is how long a statement waits for another process's lock.
const busyTimeout = 10 * time.Second

// Open opens the database file at path with at most maxConns connections
// and runs schema (idempotent statements such as CREATE TABLE IF NOT EXISTS).
func Open(ctx context.Context, path string, maxConns int, schema string) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "mmap_size(268435456)") // reads map the file instead of a syscall per page
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxIdleTime(0)
	if err := ExecRetry(ctx, db, schema); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// ExecRetry runs stmt, retrying while SQLite answers SQLITE_BUSY at once.
// A new database's switch to WAL needs an exclusive lock and fails at once
// instead of waiting out busy_timeout when several processes open it
// together, so the first statement is retried for as long as the timeout.
func ExecRetry(ctx context.Context, db *sql.DB, stmt string) error {
	deadline := time.Now().Add(busyTimeout)
	for {
		_, err := db.ExecContext(ctx, stmt)
		if err == nil || !IsBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// IsBusy reports whether err is SQLITE_BUSY (of any extended kind).
func IsBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}
