// Package gitinfo is git_status and git_diff (docs/coding-tools.md#git_status,
// docs/coding-tools.md#git_diff): the workspace seen through the hardened git
// runner, and outside a repository a diff of the server's own changes.
package gitinfo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/gitx"
	"github.com/sudocode/sudocode/internal/workspace"
)

// The git plumbing shared by git_status and git_diff. Every git process
// goes through gitx, which hardens it (a repository's own configuration
// can make git run programs, and the workspace may be hostile) and runs
// every call that reads the work tree under the sandbox; here each process
// gets a deadline and its output is read only as far as the caller needs.

// gitBinary names the git executable; tests point it at a missing or a
// fake one.
var gitBinary = "git"

// gitTimeout bounds each git process; exceeding it is TIMEOUT.
var gitTimeout = 30 * time.Second

// gitWaitDelay is how long a killed git may keep its pipes open (through a
// grandchild) before they are closed under it.
var gitWaitDelay = 2 * time.Second

const gitTokenLimit = 1 << 20 // longest NUL-terminated record parsed

// errGitEnough, returned by a consumer, stops git: the caller has read all
// it needs, the process is killed and its exit status ignored.
var errGitEnough = gitx.ErrEnough

// gitOptions are the options of every git process run in dir.
func gitOptions(dir string) gitx.Options {
	return gitx.Options{Dir: dir, Binary: gitBinary, Timeout: gitTimeout, WaitDelay: gitWaitDelay}
}

// gitFailure turns an error from runGit into the profile's shape.
func gitFailure(err error) error {
	var ee *gitx.ExitError
	if errors.As(err, &ee) {
		sub := ""
		if len(ee.Args) > 0 {
			sub = ee.Args[0]
		}
		return workspace.Errorf(workspace.CodeGitError, map[string]any{"command": "git " + sub, "exit_code": ee.Code, "stderr": strings.TrimSpace(ee.Stderr)},
			"git %s failed: %s", sub, firstLine(ee.Stderr, ee.Code))
	}
	if fe := workspace.Failure(err); fe != nil {
		return fe
	}
	return workspace.Errorf(workspace.CodeGitError, nil, "git failed: %v", err)
}

func firstLine(s string, code int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return fmt.Sprintf("exit status %d", code)
	}
	return s
}

// runGit runs git in o.Dir. consume reads stdout; it may return
// errGitEnough to stop git early. A nil consume discards stdout. Errors:
// a *fault.Error (TIMEOUT, GIT_ERROR) or *gitx.ExitError for a non-zero exit.
func runGit(ctx context.Context, o gitx.Options, consume func(*bufio.Reader) error, args ...string) error {
	return gitError(gitx.Run(ctx, o, consume, args...), args)
}

// gitError maps gitx's errors to the profile's, leaving an
// *gitx.ExitError for the caller to read.
func gitError(err error, args []string) error {
	var nf *gitx.NotFoundError
	var te *gitx.TimeoutError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &nf):
		return workspace.Errorf(workspace.CodeGitError, map[string]any{"binary": nf.Binary}, "git binary not found: %s is not installed or not on PATH", nf.Binary)
	case errors.As(err, &te):
		return workspace.Errorf(workspace.CodeTimeout, map[string]any{"command": "git " + args[0], "timeout_ms": te.Timeout.Milliseconds()},
			"git %s timed out after %s", args[0], te.Timeout)
	case errors.Is(err, context.Canceled):
		return workspace.Errorf(workspace.CodeGitError, nil, "git %s interrupted: the request was cancelled", args[0])
	}
	return err
}

// records calls each with every NUL-terminated record of r until its
// end; each may read the records that belong to the one it got (readZ).
func records(r *bufio.Reader, each func(rec string) error) error {
	for {
		rec, err := readZ(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := each(rec); err != nil {
			return err
		}
	}
}

// readZ reads one NUL-terminated record (without the NUL). At EOF it
// returns io.EOF; a final record without NUL is returned as is.
func readZ(r *bufio.Reader) (string, error) {
	var acc []byte
	for {
		chunk, err := r.ReadSlice(0)
		if len(acc)+len(chunk) > gitTokenLimit {
			return "", fmt.Errorf("git output record longer than %d bytes", gitTokenLimit)
		}
		switch {
		case err == nil:
			if acc == nil {
				return string(chunk[:len(chunk)-1]), nil
			}
			acc = append(acc, chunk[:len(chunk)-1]...)
			return string(acc), nil
		case errors.Is(err, bufio.ErrBufferFull):
			acc = append(acc, chunk...)
		case errors.Is(err, io.EOF):
			acc = append(acc, chunk...)
			if len(acc) == 0 {
				return "", io.EOF
			}
			return string(acc), nil
		default:
			return "", err
		}
	}
}

// gitRepo is the workspace seen from git.
type gitRepo struct {
	root *workspace.Root
	// prefix is the workspace's path below the work tree's top level,
	// POSIX, with a trailing slash; "" when the workspace is the top level.
	prefix string
	opts   gitx.Options
}

// gitOpen finds the work tree holding the workspace: nil (and no error)
// when the workspace is not inside one. The git binary missing is
// GIT_ERROR. The filter drivers the configuration names are switched off
// (see gitx.Filters: a courtesy, the sandbox is the protection).
func gitOpen(ctx context.Context, r *workspace.Root) (*gitRepo, error) {
	o := gitOptions(r.Path)
	repo, err := gitx.Discover(ctx, o)
	if err != nil {
		err = gitError(err, []string{"rev-parse"})
		var ee *gitx.ExitError
		if errors.As(err, &ee) && (strings.Contains(ee.Stderr, "not a git repository") || strings.Contains(ee.Stderr, "must be run in a work tree")) {
			return nil, nil
		}
		return nil, gitFailure(err)
	}
	o.Repo = repo
	filters, err := gitx.Filters(ctx, o)
	if err != nil {
		return nil, gitFailure(gitError(err, []string{"config"}))
	}
	o.NoFilters = filters
	return &gitRepo{root: r, prefix: repo.Prefix, opts: o}, nil
}

// rel turns a path relative to the work tree's top level into one
// relative to the workspace ("../x" for a path outside it, as a rename's
// source may be).
func (g *gitRepo) rel(p string) string {
	if g.prefix == "" {
		return p
	}
	if strings.HasPrefix(p, g.prefix) {
		return p[len(g.prefix):]
	}
	pre := strings.Split(strings.TrimSuffix(g.prefix, "/"), "/")
	segs := strings.Split(p, "/")
	i := 0
	for i < len(pre) && i < len(segs)-1 && pre[i] == segs[i] {
		i++
	}
	return strings.Repeat("../", len(pre)-i) + strings.Join(segs[i:], "/")
}
