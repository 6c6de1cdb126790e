package gitx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// A command that can write a work tree can rewrite the files that tell
// git where its repository is (.git, .git/commondir, the alternates). Each
// test points one of them at another repository, the victim, and shows
// that no git call through gitx reads, grants or writes the victim.

// hookWriter sets up repo with a clean filter (defined in repo's own
// configuration, so the attacker controls it) that plants a pre-commit
// hook in victim's git directory; a.txt changes but keeps its size, so
// status must run the filter to tell.
func hookWriter(t *testing.T, repo, victim string) (hook string) {
	t.Helper()
	hook = filepath.Join(victim, ".git", "hooks", "pre-commit")
	script, _ := trap(t, repo, "plant", "printf '#!/bin/sh\\n' > '"+hook+"' 2>/dev/null\ncat\n")
	testkit.Git(t, repo, "config", "filter.f.clean", script)
	write(t, filepath.Join(repo, ".gitattributes"), "*.txt filter=f\n")
	write(t, filepath.Join(repo, "a.txt"), "HELLO\n")
	return hook
}

// The race that got through, made deterministic: .git/commondir names the
// victim while the repository is discovered and is put back before git
// runs. Discovery must refuse: otherwise the victim's git directory is
// granted to the sandboxed git, and the repository's filter writes a hook
// there.
func TestCommondirFlippedDuringDiscoveryRefused(t *testing.T) {
	repo, victim := newRepo(t), newRepo(t)
	hook := hookWriter(t, repo, victim)
	commondir := filepath.Join(repo, ".git", "commondir")
	write(t, commondir, filepath.Join(victim, ".git")+"\n")
	r, err := Discover(context.Background(), Options{Dir: repo})
	os.Remove(commondir)
	if err == nil {
		_, _ = gitOut(t, Options{Dir: repo, Repo: r}, "status", "--porcelain")
	}
	if exists(hook) {
		t.Fatalf("the victim's git directory got a hook (discovery said %+v)", r)
	}
	if err == nil {
		t.Fatalf("a commondir outside the work tree was accepted: %+v", r)
	}
	if !strings.Contains(err.Error(), "outside") {
		t.Fatalf("error %q does not say the common directory is outside", err)
	}
}

// Once discovered, a call uses the repository as it was pinned (git gets
// GIT_DIR, GIT_COMMON_DIR and GIT_WORK_TREE), but git's ref store reads
// commondir again whatever the environment says: a commondir that changed
// since is refused as git starts, and the ref goes nowhere.
func TestCommondirFlippedAfterDiscoveryRefused(t *testing.T) {
	repo, victim := newRepo(t), newRepo(t)
	r, err := Discover(context.Background(), Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	commondir := filepath.Join(repo, ".git", "commondir")
	write(t, commondir, filepath.Join(victim, ".git")+"\n")
	for _, args := range [][]string{{"update-ref", "refs/heads/planted", "HEAD"}, {"branch", "planted2"}} {
		if _, err := gitOut(t, Options{Dir: repo, Repo: r, Locks: true}, args...); err == nil || !strings.Contains(err.Error(), "commondir changed") {
			t.Errorf("git %s: error %v, want a refusal", args[0], err)
		}
	}
	for _, ref := range []string{"planted", "planted2"} {
		if exists(filepath.Join(victim, ".git", "refs", "heads", ref)) {
			t.Fatalf("the ref %s was written into the victim repository", ref)
		}
	}
	os.Remove(commondir)
	if _, err := gitOut(t, Options{Dir: repo, Repo: r, Locks: true}, "update-ref", "refs/heads/planted", "HEAD"); err != nil {
		t.Fatal(err)
	}
	if !exists(filepath.Join(repo, ".git", "refs", "heads", "planted")) {
		t.Fatal("the ref was not written into the repository")
	}
}

// A call without a Repo discovers on its own, for unsandboxed
// subcommands too: a flipped commondir is refused before git writes.
func TestCommondirOutsideRefusedForEveryCall(t *testing.T) {
	repo, victim := newRepo(t), newRepo(t)
	write(t, filepath.Join(repo, ".git", "commondir"), filepath.Join(victim, ".git")+"\n")
	for _, args := range [][]string{{"update-ref", "refs/heads/planted", "HEAD"}, {"status", "--porcelain"}, {"config", "core.fsmonitor", "/bin/false"}} {
		if _, err := gitOut(t, Options{Dir: repo, Locks: true}, args...); err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("git %s: error %v, want a refusal", args[0], err)
		}
	}
	if exists(filepath.Join(victim, ".git", "refs", "heads", "planted")) {
		t.Fatal("the ref was written into the victim repository")
	}
	if out, _ := testkit.GitCmd(victim, "config", "core.fsmonitor").CombinedOutput(); strings.TrimSpace(string(out)) != "" {
		t.Fatalf("the victim's configuration was written: core.fsmonitor=%s", out)
	}
}

// A .git file naming another repository's git directory is refused.
func TestGitFileOutsideRefused(t *testing.T) {
	repo, victim := newRepo(t), newRepo(t)
	hook := hookWriter(t, repo, victim)
	dotgit := filepath.Join(repo, ".git")
	if err := os.Rename(dotgit, filepath.Join(repo, "moved.git")); err != nil {
		t.Fatal(err)
	}
	write(t, dotgit, "gitdir: "+filepath.Join(victim, ".git")+"\n")
	if r, err := Discover(context.Background(), Options{Dir: repo}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("discovery: %+v, %v; want a refusal", r, err)
	}
	if _, err := gitOut(t, Options{Dir: repo, Locks: true}, "add", "-A"); err == nil {
		t.Fatal("git add ran in the victim repository")
	}
	if exists(hook) {
		t.Fatal("the victim's git directory got a hook")
	}
	if out := testkit.Git(t, victim, "status", "--porcelain"); out != "" {
		t.Fatalf("the victim's index changed: %q", out)
	}
}

// Objects borrowed from elsewhere (objects/info/alternates) are read by
// every git call: one outside the work tree is refused, nested ones too.
func TestAlternatesOutsideRefused(t *testing.T) {
	repo, victim := newRepo(t), newRepo(t)
	info := filepath.Join(repo, ".git", "objects", "info")
	write(t, filepath.Join(info, "alternates"), filepath.Join(victim, ".git", "objects")+"\n")
	if r, err := Discover(context.Background(), Options{Dir: repo}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("discovery: %+v, %v; want a refusal", r, err)
	}
	// An alternate inside the work tree is fine, but its own alternates
	// are checked too.
	inner := filepath.Join(repo, "store")
	write(t, filepath.Join(inner, "info", "alternates"), filepath.Join(victim, ".git", "objects")+"\n")
	write(t, filepath.Join(info, "alternates"), "# borrowed\n../../store\n")
	if _, err := gitOut(t, Options{Dir: repo}, "status"); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("a nested alternate outside: %v; want a refusal", err)
	}
	write(t, filepath.Join(inner, "info", "alternates"), "")
	if _, err := gitOut(t, Options{Dir: repo}, "status"); err != nil {
		t.Fatalf("an alternate inside the work tree: %v", err)
	}
}

// The sandbox is granted the work tree and the pinned places, never a
// path inside the work tree by name: a .git swapped for a link to the
// victim after discovery is not followed into a grant.
func TestGitDirLinkedAwayAfterDiscoveryNotGranted(t *testing.T) {
	repo, victim := newRepo(t), newRepo(t)
	r, err := Discover(context.Background(), Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	dotgit := filepath.Join(repo, ".git")
	if err := os.Rename(dotgit, filepath.Join(repo, "moved.git")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(victim, ".git"), dotgit); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, "new.txt"), "new\n")
	_, _ = gitOut(t, Options{Dir: repo, Repo: r, Locks: true}, "add", "-A")
	if out := testkit.Git(t, victim, "status", "--porcelain"); out != "" {
		t.Fatalf("git wrote the victim's index through the link: %q", out)
	}
}

// A linked worktree (git worktree add) keeps its git directory in the
// main repository's .git/worktrees: accepted, because that repository
// names this work tree as its own, and git works there sandboxed.
func TestLinkedWorktreeWorks(t *testing.T) {
	repo := newRepo(t)
	wt := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-wt")
	t.Cleanup(func() { os.RemoveAll(wt) })
	testkit.Git(t, repo, "worktree", "add", "-q", "-b", "side", wt)
	r, err := Discover(context.Background(), Options{Dir: wt})
	if err != nil {
		t.Fatal(err)
	}
	if r.Top != wt || r.GitDir != filepath.Join(repo, ".git", "worktrees", filepath.Base(wt)) || r.CommonDir != filepath.Join(repo, ".git") {
		t.Fatalf("discovered %+v", r)
	}
	write(t, filepath.Join(wt, "b.txt"), "b\n")
	id := []string{"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com"}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "b"}} {
		if _, err := gitOut(t, Options{Dir: wt, Locks: true, Env: id}, args...); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := gitOut(t, Options{Dir: wt}, "status", "--porcelain"); err != nil || out != "" {
		t.Fatalf("status %q %v", out, err)
	}
	if out := testkit.Git(t, repo, "log", "-1", "--format=%s", "side"); strings.TrimSpace(out) != "b" {
		t.Fatalf("the commit did not reach the branch: %q", out)
	}
}

// A linked worktree's .git file pointed at another registration (a
// sibling worktree's, or another repository's) is refused: that
// registration names another work tree.
func TestLinkedWorktreeOfAnotherRefused(t *testing.T) {
	repo, victim := newRepo(t), newRepo(t)
	base := filepath.Dir(repo)
	wt, sibling, theirs := filepath.Join(base, "wt-mine"), filepath.Join(base, "wt-sibling"), filepath.Join(base, "wt-theirs")
	t.Cleanup(func() { os.RemoveAll(wt); os.RemoveAll(sibling); os.RemoveAll(theirs) })
	testkit.Git(t, repo, "worktree", "add", "-q", "--detach", wt)
	testkit.Git(t, repo, "worktree", "add", "-q", "--detach", sibling)
	testkit.Git(t, victim, "worktree", "add", "-q", "--detach", theirs)
	for _, target := range []string{
		filepath.Join(repo, ".git", "worktrees", "wt-sibling"),
		filepath.Join(victim, ".git", "worktrees", "wt-theirs"),
		filepath.Join(victim, ".git"),
	} {
		write(t, filepath.Join(wt, ".git"), "gitdir: "+target+"\n")
		if r, err := Discover(context.Background(), Options{Dir: wt}); err == nil {
			t.Errorf(".git naming %s: accepted as %+v", target, r)
		}
	}
}

// The attack as it ran: a loop in the work tree flips .git/commondir to
// the victim and back while git_status-like calls run (each discovers,
// then runs sandboxed). Refusals are expected; a hook in the victim is not.
func TestCommondirFlipLoop(t *testing.T) {
	repo, victim := newRepo(t), newRepo(t)
	hook := hookWriter(t, repo, victim)
	commondir := filepath.Join(repo, ".git", "commondir")
	target := []byte(filepath.Join(victim, ".git") + "\n")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				os.Remove(commondir)
				return
			default:
			}
			_ = os.WriteFile(commondir, target, 0o644)
			_ = os.Remove(commondir)
		}
	}()
	// Calls go on until a few were let through (how many the flips refuse
	// first depends on the machine's speed); the cap on tries only ends a
	// machine where the loop never lets one through.
	ran := 0
	for try := 0; ran < 5 && try < 3000 && !exists(hook); try++ {
		r, err := Discover(context.Background(), Options{Dir: repo})
		if err != nil {
			continue
		}
		ran++
		_, _ = gitOut(t, Options{Dir: repo, Repo: r}, "status", "--porcelain")
		_, _ = gitOut(t, Options{Dir: repo, Repo: r}, "diff")
	}
	close(stop)
	<-done
	if exists(hook) {
		t.Fatal("the victim's git directory got a hook")
	}
	if ran == 0 {
		t.Fatal("every discovery was refused: the loop never let a call run, the test proves nothing")
	}
}
