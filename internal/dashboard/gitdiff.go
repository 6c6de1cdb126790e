package dashboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// DiffLimit caps the diff text the dashboard shows.
const DiffLimit = 2 << 20

// DiffResult is a diff's text, cut at DiffLimit.
type DiffResult struct {
	Text      string
	Truncated bool
}

var (
	shaRE = regexp.MustCompile(`^[0-9a-f]{7,64}$`)
	// A branch as git check-ref-format allows it, and never an option.
	branchRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/+-]*$`)
)

// BranchDiff is `git diff BASE...BRANCH` in the repository at dir: what the
// branch changed since it forked from BASE. Git runs hardened (see gitArgs).
func BranchDiff(ctx context.Context, dir, base, branch string) (DiffResult, error) {
	if !shaRE.MatchString(base) {
		return DiffResult{}, fmt.Errorf("the task has no base commit (%q)", base)
	}
	if !branchRE.MatchString(branch) || strings.Contains(branch, "..") {
		return DiffResult{}, fmt.Errorf("the task's branch %q is not a branch name", branch)
	}
	return runGitDiff(ctx, dir, base+"...refs/heads/"+branch)
}

// WorktreeDiff is `git diff HEAD` in a task's worktree: the changes the
// agent has not committed (untracked files are not shown).
func WorktreeDiff(ctx context.Context, worktree string) (DiffResult, error) {
	if _, err := os.Stat(worktree); err != nil {
		return DiffResult{}, err
	}
	return runGitDiff(ctx, worktree, "HEAD")
}

// gitHardening switches off everything in a repository's configuration
// that can make git run a program (fsmonitor hooks, external diff drivers,
// textconv, pagers, hooks) or reach a network (lazy fetches).
var gitHardening = []string{
	"--no-optional-locks",
	"-c", "core.fsmonitor=false",
	"-c", "core.quotepath=off",
	"-c", "diff.external=",
	"-c", "core.pager=cat",
	"-c", "color.ui=false",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "protocol.allow=never",
}

// gitEnv is the whole environment of a git process: nothing of the
// server's but what git needs to find itself and the user's configuration
// (no GIT_DIR, GIT_CONFIG_*, …), and no system configuration.
func gitEnv() []string {
	env := []string{"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "PAGER=cat",
		"GIT_ALLOW_PROTOCOL=none", "GIT_NO_LAZY_FETCH=1", "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// gitTimeout bounds one git process.
const gitTimeout = 30 * time.Second

func runGitDiff(ctx context.Context, dir, rev string) (DiffResult, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	args := append(append([]string{}, gitHardening...), "diff", "--no-ext-diff", "--no-textconv", "--no-color",
		"--find-renames", "--submodule=short", rev, "--")
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	cmd.WaitDelay = 2 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: 16 << 10}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return DiffResult{}, err
	}
	if err := cmd.Start(); err != nil {
		return DiffResult{}, fmt.Errorf("cannot run git: %w", err)
	}
	buf, rerr := io.ReadAll(io.LimitReader(out, DiffLimit+1))
	res := DiffResult{Text: string(buf)}
	if len(buf) > DiffLimit {
		res.Text, res.Truncated = cutAtLine(string(buf[:DiffLimit])), true
		cmd.Process.Kill()
	}
	werr := cmd.Wait()
	if res.Truncated {
		return res, nil
	}
	if rerr != nil {
		return DiffResult{}, rerr
	}
	if werr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = werr.Error()
		}
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return DiffResult{}, errors.New("git diff " + rev + ": " + msg)
	}
	return res, nil
}

// cutAtLine drops a partial last line.
func cutAtLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[:i+1]
	}
	return s
}

// limited keeps the first n bytes written to it and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	k := min(len(p), l.n)
	if k > 0 {
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
