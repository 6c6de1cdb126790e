package app

import (
	"context"
	"os"
	"sync"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// Tracker is a project's tracker as every surface of a process reaches
// it: one store (one cache connection, its prepared statements and its
// watch of the files), opened at first use and kept until Close. Calls
// are serialised, so the process has one writer and no surface waits on
// another's lock of the cache. Each call finds the tracker again (an
// `init` since the last call, nearer than the tracker in use, is then
// the one used) and makes the store compare its cache with the files,
// which another process or a git pull may have changed.
type Tracker struct {
	start string // where the tracker is looked for, walking up; "" for the environment's choice
	actor string // who changes are recorded as when a call names nobody

	mu     sync.Mutex
	repo   *store.Repo
	closed bool
}

// NewTracker returns the tracker found walking up from start. An empty
// start is the environment's choice: SUDOCODE_DB, SUDOCODE_WORKING_DIR or
// the working directory (store.Find). actor is who changes are recorded as
// when a call names nobody.
func NewTracker(start, actor string) *Tracker {
	return &Tracker{start: start, actor: actor}
}

// Start is the directory the tracker is looked for from, and where Init
// makes one.
func (t *Tracker) Start() string {
	if t.start != "" {
		return t.start
	}
	if d := os.Getenv("SUDOCODE_WORKING_DIR"); d != "" {
		return d
	}
	return "."
}

// Find returns the tracker's .sudocode directory, or why there is none.
func (t *Tracker) Find() (string, error) {
	if t.start == "" {
		return store.Find(".")
	}
	return store.FindFrom(t.start)
}

// Do runs fn on the tracker, with changes recorded as actor (empty: the
// tracker's own), and returns its error.
func (t *Tracker) Do(ctx context.Context, actor string, fn func(*store.Repo) error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, err := t.open(ctx)
	if err != nil {
		return err
	}
	r.Actor = t.actor
	if actor != "" {
		r.Actor = actor
	}
	return fn(r)
}

// Read runs fn on t as Do does and returns what fn returns.
func Read[T any](ctx context.Context, t *Tracker, actor string, fn func(*store.Repo) (T, error)) (T, error) {
	var out T
	err := t.Do(ctx, actor, func(r *store.Repo) error {
		var err error
		out, err = fn(r)
		return err
	})
	return out, err
}

// Init makes a tracker at Start with the id prefix (store.Init), between
// two calls.
func (t *Tracker) Init(prefix string) (tracker.InitResult, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return store.Init(t.Start(), prefix)
}

// open returns the store of the tracker found now, opening it (and
// closing one found earlier elsewhere) when needed; t.mu is held.
func (t *Tracker) open(ctx context.Context) (*store.Repo, error) {
	if t.closed {
		return nil, errClosed
	}
	dir, err := t.Find()
	if err != nil {
		return nil, err
	}
	if t.repo != nil && t.repo.Dir != dir {
		t.repo.Close()
		t.repo = nil
	}
	if t.repo == nil {
		r, err := store.Open(ctx, dir, t.actor)
		if err != nil {
			return nil, err
		}
		r.KeepStatements()
		r.WatchFiles()
		t.repo = r
	}
	t.repo.Recheck()
	return t.repo, nil
}

// errClosed is a call's error after Close.
var errClosed = fault.New(fault.Unavailable, "the tracker is closed: the server is shutting down")

// Close closes the store; a call after it fails.
func (t *Tracker) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	if t.repo == nil {
		return nil
	}
	err := t.repo.Close()
	t.repo = nil
	return err
}
