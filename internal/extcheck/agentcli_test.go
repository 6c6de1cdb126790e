package extcheck

// A real agent CLI connects to every server as its users configure it:
// Claude Code (pinned, as the orchestrator's tests run it) negotiates the
// revision it speaks with each server on stdio, on HTTP, and on HTTP run
// --stateless, and `claude mcp list` reports each one connected.

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/modelsim"
	"github.com/sudocode/sudocode/internal/npmtool"
	"github.com/sudocode/sudocode/internal/testkit"
)

func TestClaudeCodeConnectsToEveryServer(t *testing.T) {
	tl := requireTools(t)
	dir, err := npmtool.Install(modelsim.ClaudePackage, modelsim.ClaudeVersion, tl.pathDir)
	if err != nil {
		testkit.Missing(t, "installing %s@%s: %v", modelsim.ClaudePackage, modelsim.ClaudeVersion, err)
	}
	// The package's bin is a native executable, run as it is (not by node).
	claude := filepath.Join(dir, "node_modules", ".bin", "claude")
	home := t.TempDir()
	work := t.TempDir()
	var names []string
	add := func(name string, args ...string) {
		t.Helper()
		if r := runCLI(t, tl, work, home, time.Minute, claude, append([]string{"mcp", "add", "-s", "user"}, args...)...); r.code != 0 {
			t.Fatalf("claude mcp add %s: exit %d\n%s\n%s", name, r.code, r.stdout, r.stderr)
		}
		names = append(names, name)
	}
	for _, sc := range servers {
		sdir := sc.prepare(t)
		// claude starts a stdio server in its own working directory:
		// the tracker is told its project by SUDOCODE_WORKING_DIR, the
		// others by their flags.
		add(sc.name+"-stdio", append([]string{sc.name + "-stdio", "-e", "SUDOCODE_WORKING_DIR=" + sdir, "--", sudocodeBin}, sc.stdio(sdir)...)...)
		add(sc.name+"-http", "--transport", "http", sc.name+"-http", startHTTP(t, sdir, t.TempDir(), sc.http(sdir)...))
		add(sc.name+"-stateless", "--transport", "http", sc.name+"-stateless",
			startHTTP(t, sdir, t.TempDir(), append(sc.http(sdir), "--stateless")...))
	}
	r := runCLI(t, tl, work, home, 3*time.Minute, claude, "mcp", "list")
	t.Logf("claude mcp list:\n%s", r.stdout)
	for _, name := range names {
		line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `: .*$`).FindString(r.stdout)
		if !strings.Contains(line, "Connected") {
			t.Errorf("claude mcp list: %s is not connected: %q\nstdout:\n%s\nstderr:\n%s", name, line, r.stdout, r.stderr)
		}
	}
}

// runCLI runs the executable bin with args in dir, with HOME set to home
// and Node 22 first on PATH.
func runCLI(t *testing.T, tl *nodeTools, dir, home string, timeout time.Duration, bin string, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env, cmd.WaitDelay = dir, tl.env(home), 5*time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := runResult{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ctx.Err() == nil:
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(bin), strings.Join(args, " "), err, r.stdout, r.stderr)
	}
	return r
}
