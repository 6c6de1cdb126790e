package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitTimeout bounds one git command of a test (scaled by the knob): git
// on a test's small repository answers at once, so a command still
// running then is stuck, and the test says which.
const gitTimeout = time.Minute

// Git runs git in dir and returns its output, trimmed; a failure fails
// tb with git's output. It runs with the test's environment less any
// GIT_* variable (a test run from a git hook must not act on the hook's
// repository), never prompts, and speaks English.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	git := Command(tb, "git", "apt-get install -y git")
	cmd := exec.CommandContext(Context(tb, gitTimeout), git, args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
}

// Repo makes a git repository in a new temporary directory of tb, its
// path with symlinks resolved (as git and the code under test report
// it): branch main, an identity of its own (user.name Test), and one
// commit, "initial", of README ("hello\n").
func Repo(tb testing.TB) string {
	tb.Helper()
	return RepoOf(tb, map[string]string{"README": "hello\n"})
}

// RepoOf is Repo whose one commit holds files (slash-separated path →
// content) instead of README.
func RepoOf(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	Git(tb, dir, "init", "-q", "-b", "main")
	Git(tb, dir, "config", "user.name", "Test")
	Git(tb, dir, "config", "user.email", "test@example.com")
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	Git(tb, dir, "add", "-A")
	Git(tb, dir, "commit", "-q", "-m", "initial")
	return dir
}
