package dashboard

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/gitx"
)

// DiffLimit caps the diff text the dashboard shows.
const DiffLimit = 2 << 20

// DiffResult is a diff's text, cut at DiffLimit.
type DiffResult struct {
	Text      string
	Truncated bool
}

var (
	shaRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{7,64}$`) })
	// A branch as git check-ref-format allows it, and never an option.
	branchRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/+-]*$`) })
)

// BranchDiff is `git diff BASE...BRANCH` in the repository at dir: what the
// branch changed since it forked from BASE.
func BranchDiff(ctx context.Context, dir, base, branch string) (DiffResult, error) {
	if !shaRE().MatchString(base) {
		return DiffResult{}, fmt.Errorf("the task has no base commit (%q)", base)
	}
	if !branchRE().MatchString(branch) || strings.Contains(branch, "..") {
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

// gitTimeout bounds one git process.
const gitTimeout = 30 * time.Second

// runGitDiff runs git diff through gitx (hardened, sandboxed: a worktree
// diff reads the task's files) and keeps DiffLimit bytes of it.
func runGitDiff(ctx context.Context, dir, rev string) (DiffResult, error) {
	var buf []byte
	truncated := false
	err := gitx.Run(ctx, gitx.Options{Dir: dir, Timeout: gitTimeout}, func(r *bufio.Reader) error {
		b, err := io.ReadAll(io.LimitReader(r, DiffLimit+1))
		buf = b
		if err != nil {
			return err
		}
		if len(b) > DiffLimit {
			truncated = true
			return gitx.ErrEnough
		}
		return nil
	}, "diff", "--no-color", "--find-renames", "--submodule=short", rev, "--")
	if truncated {
		return DiffResult{Text: cutAtLine(string(buf[:DiffLimit])), Truncated: true}, nil
	}
	if err != nil {
		msg := err.Error()
		var ee *gitx.ExitError
		if errors.As(err, &ee) && strings.TrimSpace(ee.Stderr) != "" {
			msg = strings.TrimSpace(ee.Stderr)
		}
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return DiffResult{}, errors.New("git diff " + rev + ": " + msg)
	}
	return DiffResult{Text: string(buf)}, nil
}

// cutAtLine drops a partial last line.
func cutAtLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[:i+1]
	}
	return s
}
