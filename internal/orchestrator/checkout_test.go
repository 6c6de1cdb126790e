package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// Checkout says what HEAD is and counts the checkout's own changes, before
// the first commit, on a branch and detached.
func TestCheckout(t *testing.T) {
	ctx := context.Background()
	repo := t.TempDir()
	testkit.Git(t, repo, "init", "-q", "-b", "main")
	store, err := OpenStore(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := New(store, nil, Options{Repo: repo, Grace: time.Second, NoPool: true})
	t.Cleanup(func() { o.Close(); store.Close() })
	check := func(want Checkout) {
		t.Helper()
		if got, err := o.Checkout(ctx); err != nil || got != want {
			t.Fatalf("Checkout = %+v, %v; want %+v", got, err, want)
		}
	}
	check(Checkout{Branch: "main"})
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644)
	testkit.Git(t, repo, "add", "a.txt")
	testkit.Git(t, repo, "commit", "-qm", "first")
	head := testkit.Git(t, repo, "rev-parse", "HEAD")
	check(Checkout{Head: head, Branch: "main"})
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("changed\n"), 0o644)
	os.MkdirAll(filepath.Join(repo, "new", "deep"), 0o755)
	os.WriteFile(filepath.Join(repo, "new", "deep", "b.txt"), []byte("b\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "c.txt"), []byte("c\n"), 0o644)
	testkit.Git(t, repo, "add", "c.txt")
	check(Checkout{Head: head, Branch: "main", Changes: 3})
	testkit.Git(t, repo, "checkout", "-q", "--detach")
	check(Checkout{Head: head, Changes: 3})
}
