package cli_test

// Commands run in-process: cli.Main with the test's own working
// directory, environment and buffers, as the binary runs them but without
// starting a process. Most tests run them so; the end-to-end tests that
// need a real process (exit statuses seen by a shell, signals, stdio and
// HTTP servers, agents and git hooks that run the binary by its name, the
// tracker's lock between processes) run the built binary (runCmd, runBinAt).

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/cli"
)

// runMain runs the sudocode command line args in-process in dir with env
// ("KEY=value", the last setting of a name winning, as for a process),
// feeding it stdin.
func runMain(t *testing.T, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(t.Context(), args, cli.IO{In: strings.NewReader(stdin), Out: &stdout, Err: &stderr,
		Dir: dir, Getenv: getenv(env)})
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

// getenv looks names up in env as a process's environment.
func getenv(env []string) func(string) string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return func(k string) string { return m[k] }
}
