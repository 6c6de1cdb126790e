package cli_test

// Commands run in-process: cli.Main with the test's own working
// directory, environment and buffers, as the binary runs them but without
// starting a process. Most tests run them so, the task commands included
// (their agents are child processes with the test's environment, given
// the built binary as the tracker's MCP server); the end-to-end tests that
// need a real process (exit statuses seen by a shell, signals, stdio and
// HTTP servers, git hooks that run the binary by its name, a git put
// first on the PATH (sudocode's own git commands find git on the
// process's), the tracker's lock between processes) run the built binary
// (runCmd, runBinAt).

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/cli"
	"github.com/sudocode/sudocode/internal/userenv"
)

// runMain runs the sudocode command line args in-process in dir with env
// ("KEY=value", the last setting of a name winning, as for a process),
// feeding it stdin. The agents of the tasks it starts get the built
// binary as the tracker's MCP server: the test binary running the command
// is not sudocode.
func runMain(t *testing.T, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(t.Context(), args, cli.IO{In: strings.NewReader(stdin), Out: &stdout, Err: &stderr,
		Dir: dir, Env: userenv.Of(env), Executable: sudocodeBin})
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// sudocode runs args in-process in the test's own working directory, as
// runCmd runs the binary there.
func sudocode(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return runMain(t, wd, env, stdin, args...)
}
