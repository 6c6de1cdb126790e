package gitx

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// plainGit runs the user's git, unhardened, for the control runs that
// show a hostile configuration really fires.
func plainGit(t testing.TB, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C", "GIT_TERMINAL_PROMPT=0"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// newRepo makes a repository with one commit of a.txt, its path
// canonical.
func newRepo(t testing.TB) string {
	t.Helper()
	return testkit.RepoOf(t, map[string]string{"a.txt": "hello\n"})
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// trap writes, inside the repository's git directory (which a sandboxed
// git may write, so only the override can stop it), a script that
// touches a marker and then runs body; it returns the script and the
// marker.
func trap(t *testing.T, repo, name, body string) (script, marker string) {
	t.Helper()
	marker = filepath.Join(repo, ".git", "markers", name)
	script = filepath.Join(repo, ".git", "trap", name)
	if err := os.MkdirAll(filepath.Dir(marker), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, script, "#!/bin/sh\ntouch '"+marker+"'\n"+body)
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	return script, marker
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// control shows the trap fires with the user's plain git (so the test can
// fail), then removes the marker.
func control(t *testing.T, repo, marker string, args ...string) {
	t.Helper()
	plainGit(t, repo, args...)
	if !exists(marker) {
		t.Fatalf("control: plain git %s did not fire the trap: the test proves nothing", strings.Join(args, " "))
	}
	os.Remove(marker)
}

func gitOut(t *testing.T, o Options, args ...string) (string, error) {
	t.Helper()
	out, err := Output(context.Background(), o, 1<<20, args...)
	return string(out), err
}

// plainGitIn is plainGit with stdin.
func plainGitIn(t *testing.T, dir, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C", "GIT_TERMINAL_PROMPT=0"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}
