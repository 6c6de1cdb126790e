package app_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// TestTrackerServesSurfacesAtOnce: surfaces calling one tracker at once
// (as an MCP server, the dashboard and the tasks do in one process) each
// get their change made, recorded as the caller they name or else the
// tracker's actor, and each sees the others' changes.
func TestTrackerServesSurfacesAtOnce(t *testing.T) {
	dir := t.TempDir()
	if _, err := store.Init(dir, "demo"); err != nil {
		t.Fatal(err)
	}
	tr := app.NewTracker(dir, "owner")
	t.Cleanup(func() { tr.Close() })
	ctx := context.Background()
	callers := []string{"", "alice", "bob", ""}
	var mu sync.Mutex
	made := map[string]string{} // issue id → who it should be recorded as
	var wg sync.WaitGroup
	for i, who := range callers {
		wg.Go(func() {
			for j := range 5 {
				err := tr.Do(ctx, who, func(r *store.Repo) error {
					is, err := r.CreateIssue(ctx, store.IssueInput{Title: fmt.Sprintf("surface %d change %d", i, j)})
					if err == nil {
						mu.Lock()
						made[is.ID] = cmp.Or(who, "owner")
						mu.Unlock()
					}
					return err
				})
				if err != nil {
					t.Errorf("surface %d: %v", i, err)
				}
			}
		})
	}
	wg.Wait()
	if len(made) != 20 {
		t.Fatalf("%d issues made, want 20", len(made))
	}
	for id, who := range made {
		is, err := app.Read(ctx, tr, "", func(r *store.Repo) (tracker.IssueDetail, error) { return r.ShowIssue(ctx, id) })
		if err != nil {
			t.Fatal(err)
		}
		if is.CreatedBy != who {
			t.Errorf("issue %s recorded as made by %q, want %q", id, is.CreatedBy, who)
		}
	}
}

// TestTrackerFollowsInit: a tracker looked for from a directory below
// another tracker uses that one until `init` makes one at the directory,
// then the new one; with none anywhere, a call says there is none.
func TestTrackerFollowsInit(t *testing.T) {
	ctx := context.Background()
	top := t.TempDir()
	sub := filepath.Join(top, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tr := app.NewTracker(sub, "owner")
	t.Cleanup(func() { tr.Close() })
	if err := tr.Do(ctx, "", func(*store.Repo) error { return nil }); fault.CodeOf(err) != fault.NotFound {
		t.Fatalf("a call with no tracker anywhere: %v, want not_found", err)
	}
	if _, err := store.Init(top, "top"); err != nil {
		t.Fatal(err)
	}
	dirOf := func() string {
		d, err := app.Read(ctx, tr, "", func(r *store.Repo) (string, error) { return r.Dir, nil })
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if got := dirOf(); got != filepath.Join(top, store.DirName) {
		t.Fatalf("the tracker above: %s", got)
	}
	if _, err := tr.Init("sub"); err != nil {
		t.Fatal(err)
	}
	if got := dirOf(); got != filepath.Join(sub, store.DirName) {
		t.Errorf("after init below: %s, want the new tracker", got)
	}
}

// TestTrackerClosed: a call after Close fails as unavailable, and does
// not open the store again.
func TestTrackerClosed(t *testing.T) {
	dir := t.TempDir()
	if _, err := store.Init(dir, "demo"); err != nil {
		t.Fatal(err)
	}
	tr := app.NewTracker(dir, "owner")
	if err := tr.Do(context.Background(), "", func(*store.Repo) error { return nil }); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	err := tr.Do(context.Background(), "", func(*store.Repo) error {
		t.Error("a call ran after Close")
		return nil
	})
	if fault.CodeOf(err) != fault.Unavailable {
		t.Errorf("a call after Close: %v, want unavailable", err)
	}
}
