package testkit

import (
	"context"
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

// gitSettings pin, on every test's git command line, what a developer's
// own configuration would otherwise decide: who commits, that nothing is
// signed, the first branch's name, that no hook runs, which files are
// ignored, and that a local path may serve as a remote or submodule.
// Settings on the command line outrank a repository's own; a test that
// needs its repository to decide one of these says so on its own command
// line, after these.
var gitSettings = []string{
	"-c", "user.name=Test",
	"-c", "user.email=test@example.com",
	"-c", "commit.gpgsign=false",
	"-c", "tag.gpgsign=false",
	"-c", "init.defaultBranch=main",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "core.excludesFile=" + os.DevNull,
	"-c", "core.attributesFile=" + os.DevNull,
	"-c", "protocol.file.allow=always",
}

// Git runs git in dir (as GitCmd does) and returns its output, trimmed;
// a failure fails tb with git's output, and so does a git still running
// after a minute (scaled by SUDOCODE_TEST_SLOW).
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	return GitWith(tb, os.Environ(), dir, args...)
}

// GitWith is Git whose git starts from env (KEY=value entries) instead of
// the test's environment, through GitEnv: for a git whose children (a
// merge driver, say) must find what the code under test finds, such as
// its PATH and its directories.
func GitWith(tb testing.TB, env []string, dir string, args ...string) string {
	tb.Helper()
	Command(tb, "git", "apt-get install -y git")
	cmd := gitCommand(Context(tb, gitTimeout), dir, args...)
	cmd.Env = GitEnv(env)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// GitCmd is the git command Git runs, for a test that needs the command
// itself: to give it stdin, read its stdout apart from its stderr, or see
// it fail. Like every git of a test, it reads no system or global
// configuration (only the repository's own, which gitSettings outrank),
// never prompts and speaks English; its environment is GitEnv of the
// test's, which a test may replace with GitEnv of another.
func GitCmd(dir string, args ...string) *exec.Cmd {
	cmd := gitCommand(context.Background(), dir, args...)
	cmd.Env = GitEnv(os.Environ())
	return cmd
}

func gitCommand(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append(append([]string(nil), gitSettings...), args...)...)
	cmd.Dir = dir
	return cmd
}

// GitEnv is the environment of a test's git built on env: env less every
// GIT_* variable (a test run from a git hook must not act on the hook's
// repository, and the test's own settings are on its command line), with
// no system or global configuration file, no prompt, and the C locale.
// HOME stays, for the code under test that reads files there; what git
// itself would read there is turned off here and in gitSettings.
func GitEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_") {
			out = append(out, kv)
		}
	}
	return append(out, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+noGlobalConfig, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
}

// noGlobalConfig is the global configuration of a test's git: a file
// that cannot exist, which git reads as none. Not os.DevNull: a test's
// `git config --global` would then replace the machine's /dev/null with a
// file of its own (git writes a config file by renaming a new one over
// it, and a test runs as root in CI); under a path that is not a
// directory, the write fails and says so.
var noGlobalConfig = filepath.Join(os.DevNull, "gitconfig")

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
