package testkit

import (
	"path/filepath"
	"testing"
)

// Repo is a repository on main with one commit of README, at a path with
// no symlink in it, and Git runs git in it.
func TestRepo(t *testing.T) {
	dir := Repo(t)
	if real, err := filepath.EvalSymlinks(dir); err != nil || real != dir {
		t.Errorf("Repo at %s, its real path %s (%v)", dir, real, err)
	}
	if b := Git(t, dir, "branch", "--show-current"); b != "main" {
		t.Errorf("branch %q, want main", b)
	}
	if log := Git(t, dir, "log", "--format=%s %an"); log != "initial Test" {
		t.Errorf("log %q, want one commit, initial by Test", log)
	}
	if files := Git(t, dir, "ls-files"); files != "README" {
		t.Errorf("files %q, want README", files)
	}
	if st := Git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("status %q, want clean", st)
	}
}

// RepoOf commits the files it is given, in directories too, and nothing
// else.
func TestRepoOf(t *testing.T) {
	dir := RepoOf(t, map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"})
	if files := Git(t, dir, "ls-files"); files != "a.txt\nsub/b.txt" {
		t.Errorf("files %q, want a.txt and sub/b.txt", files)
	}
	if got := Git(t, dir, "show", "HEAD:sub/b.txt"); got != "b" {
		t.Errorf("sub/b.txt holds %q", got)
	}
	if st := Git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("status %q, want clean", st)
	}
}
