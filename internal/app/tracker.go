package app

import (
	"context"
	"path/filepath"
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
	start  string                  // where the tracker is looked for, walking up
	getenv func(key string) string // the environment that may say otherwise (nil: none)
	actor  string                  // who changes are recorded as when a call names nobody

	mu     sync.Mutex
	repo   *store.Repo
	closed bool
}

// NewTracker returns the tracker found walking up from start. actor is
// who changes are recorded as when a call names nobody.
func NewTracker(start, actor string) *Tracker {
	return &Tracker{start: start, actor: actor}
}

// NewTrackerIn returns the tracker a command run in the directory wd with
// the environment getenv finds (store.Find): where SUDOCODE_DB or
// SUDOCODE_WORKING_DIR say, else walking up from wd.
func NewTrackerIn(wd string, getenv func(string) string, actor string) *Tracker {
	return &Tracker{start: wd, getenv: getenv, actor: actor}
}

// Start is the directory the tracker is looked for from, and where Init
// makes one.
func (t *Tracker) Start() string {
	if t.getenv == nil {
		return t.start
	}
	if d := t.getenv("SUDOCODE_WORKING_DIR"); d != "" {
		if filepath.IsAbs(d) {
			return d
		}
		return filepath.Join(t.start, d)
	}
	return t.start
}

// Find returns the tracker's .sudocode directory, or why there is none.
func (t *Tracker) Find() (string, error) {
	if t.getenv == nil {
		return store.FindFrom(t.start)
	}
	return store.Find(t.start, t.getenv)
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
