package testkit

import (
	"os"
	"path/filepath"
	"strings"
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

// A developer's own git configuration never reaches a test's git: with a
// global configuration that signs every commit through a program that
// fails, runs a hooks directory whose pre-commit fails, names another
// default branch and another identity, and a global ignore file that
// ignores every .txt, Repo still makes its repository, and a repository
// made and committed to through Git alone holds a.txt, on main, by Test,
// unsigned.
func TestGitIgnoresTheUsersConfiguration(t *testing.T) {
	home := t.TempDir()
	hooks := filepath.Join(home, "hooks")
	if err := os.Mkdir(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hooks, "pre-commit"), []byte("#!/bin/sh\necho user hook ran >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	config := "[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = /nonexistent/gpg\n[core]\n\thooksPath = " + hooks +
		"\n[init]\n\tdefaultBranch = trunk\n[user]\n\tname = Someone Else\n\temail = else@example.com\n"
	for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, "git", "config")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "git", "ignore"), []byte("*.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)

	Repo(t)

	dir := t.TempDir()
	Git(t, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "add", "a.txt")
	Git(t, dir, "commit", "-q", "-m", "first")
	if got := Git(t, dir, "log", "--format=%D|%an <%ae>|%G?", "--name-only"); got != "HEAD -> main|Test <test@example.com>|N\n\na.txt" {
		t.Errorf("commit %q, want a.txt, on main, by Test <test@example.com>, unsigned (N)", got)
	}
}

// GitCmd is the same git as Git, for a test that needs the command
// itself: its stdin here, and its exit status apart from its output.
func TestGitCmd(t *testing.T) {
	dir := Repo(t)
	cmd := GitCmd(dir, "hash-object", "--stdin")
	cmd.Stdin = strings.NewReader("hello\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), Git(t, dir, "rev-parse", "HEAD:README"); got != want {
		t.Errorf("hash of hello %s, want README's %s", got, want)
	}
	if GitCmd(dir, "rev-parse", "--verify", "-q", "refs/heads/absent").Run() == nil {
		t.Error("rev-parse of a branch that does not exist succeeded")
	}
}

// A test's git has no global configuration to write: `git config
// --global` fails, and the machine's /dev/null, which an earlier version
// named as that configuration, stays the device (git writes a config
// file by renaming a new one over it, and CI runs as root).
func TestGitCannotWriteAGlobalConfiguration(t *testing.T) {
	dir := Repo(t)
	if out, err := GitCmd(dir, "config", "--global", "user.name", "Someone").CombinedOutput(); err == nil {
		t.Errorf("git config --global succeeded: %s", out)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v %v", os.DevNull, st.Mode(), err)
	}
	if got := Git(t, dir, "log", "-1", "--format=%an"); got != "Test" {
		t.Errorf("a commit of the repository reads as by %q, want Test", got)
	}
}
