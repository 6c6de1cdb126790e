package gitx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

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

// control shows the trap fires with a plain git, the test's, which obeys
// the repository's configuration (so the test can fail), then removes the
// marker.
func control(t *testing.T, repo, marker string, args ...string) {
	t.Helper()
	testkit.GitCmd(repo, args...).Run()
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
