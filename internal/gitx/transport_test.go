package gitx

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// A transport fetches and pushes between repositories on this machine,
// and clones one, with no hook of either side run.
func TestTransportFetchPushClone(t *testing.T) {
	origin := newRepo(t)
	_, preReceive := trap(t, origin, "pre-receive", "exit 1\n")
	testkit.Git(t, origin, "config", "core.hooksPath", filepath.Join(origin, ".git", "trap"))
	dir := t.TempDir()
	clone := filepath.Join(dir, "clone")
	if _, err := gitOut(t, Options{Dir: dir, Transport: true, Locks: true}, "clone", "--quiet", "--no-checkout", "--", origin, clone); err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(testkit.Git(t, origin, "rev-parse", "HEAD"))
	if got := strings.TrimSpace(testkit.Git(t, clone, "rev-parse", "HEAD")); got != head {
		t.Fatalf("clone HEAD %s, origin %s", got, head)
	}
	testkit.Git(t, origin, "commit", "--allow-empty", "-q", "-m", "second")
	if _, err := gitOut(t, Options{Dir: clone, Transport: true, Locks: true}, "fetch", "--quiet", "--", origin, "+HEAD:refs/fetched/x"); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, clone, "rev-parse", "--verify", "refs/fetched/x")
	if _, err := gitOut(t, Options{Dir: clone, Transport: true, Locks: true}, "push", "--quiet", "--", origin, "refs/fetched/x:refs/pushed/x"); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, origin, "rev-parse", "--verify", "refs/pushed/x")
	if exists(preReceive) {
		t.Fatal("the receiving repository's pre-receive hook ran")
	}
}

// A transport speaks a path, ssh and https only: a remote helper or git's
// own protocol is refused before git runs, and git is told the same.
func TestTransportProtocolsRefused(t *testing.T) {
	repo := newRepo(t)
	ext, marker := trap(t, repo, "ext", "exit 1\n")
	for _, url := range []string{"ext::" + ext, "git://example.invalid/r.git", "http://example.invalid/r.git"} {
		_, err := gitOut(t, Options{Dir: repo, Transport: true, Locks: true}, "fetch", "--", url)
		if err == nil || !strings.Contains(err.Error(), "not allowed") {
			t.Errorf("fetch %s: %v, want refused as not allowed", url, err)
		}
	}
	// A repository's insteadOf can rewrite an allowed URL into ext::; git's
	// own list of protocols refuses it.
	testkit.Git(t, repo, "config", "url.ext::"+ext+".insteadOf", "https://example.invalid/")
	if _, err := gitOut(t, Options{Dir: repo, Transport: true, Locks: true}, "fetch", "--", "https://example.invalid/r.git"); err == nil {
		t.Fatal("a fetch rewritten to ext:: succeeded")
	}
	if exists(marker) {
		t.Fatal("the ext:: command ran")
	}
	if _, err := gitOut(t, Options{Dir: repo, Transport: true}, "status"); err == nil || !strings.Contains(err.Error(), "fetch, push and clone") {
		t.Fatalf("status with a transport: %v, want refused", err)
	}
}
