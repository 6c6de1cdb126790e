package orchestrator

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// DiffStat summarizes a task's changes against its base commit.
type DiffStat struct {
	Files      int    `json:"files"`
	Insertions int    `json:"insertions"`
	Deletions  int    `json:"deletions"`
	Text       string `json:"text"` // git diff --stat
}

// changes is what a task changed against its base commit: its branch's
// commits plus, while the worktree exists, its uncommitted and untracked
// files.
type changes struct {
	Files   []string // sorted, relative to the repository root
	Stat    DiffStat
	Commits int
}

// noop reports whether nothing changed at all.
func (c changes) noop() bool { return c.Commits == 0 && len(c.Files) == 0 }

// tempIndex is a copy of a worktree's index into which every file of
// the worktree was added (git add -A), so that diffs and trees see
// uncommitted and untracked files while the worktree's own index stays
// untouched (an agent may be using it). Its entries carry fresh stat data
// for every file.
type tempIndex struct {
	env       []string // GIT_INDEX_FILE for git
	path, dir string
}

// newTempIndex makes the temporary index of the worktree; remove it.
func newTempIndex(ctx context.Context, worktree string) (tempIndex, error) {
	index, err := git(ctx, worktree, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return tempIndex{}, err
	}
	return newTempIndexAt(ctx, worktree, index)
}

// newTempIndexAt is newTempIndex for the worktree whose own index is at
// index.
func newTempIndexAt(ctx context.Context, worktree, index string) (tempIndex, error) {
	// Beside the worktree's own index, in its git directory: a sandboxed
	// git may write there anyway, so the calls need no box of their own.
	tmp, err := os.MkdirTemp(filepath.Dir(index), "sudocode-index-")
	if err != nil {
		return tempIndex{}, err
	}
	ti := tempIndex{path: filepath.Join(tmp, "index"), dir: tmp}
	ti.env = []string{"GIT_INDEX_FILE=" + ti.path}
	if err := copyFile(index, ti.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		ti.remove()
		return tempIndex{}, err
	}
	if _, err := gitWith(ctx, worktree, ti.env, "add", "-A"); err != nil {
		ti.remove()
		return tempIndex{}, err
	}
	return ti, nil
}

func (ti tempIndex) remove() {
	if ti.dir != "" {
		_ = os.RemoveAll(ti.dir)
	}
}

// withTempIndex runs fn with env pointing git at the worktree's
// temporary index (see tempIndex).
func withTempIndex(ctx context.Context, worktree string, fn func(env []string) error) error {
	ti, err := newTempIndex(ctx, worktree)
	if err != nil {
		return err
	}
	defer ti.remove()
	return fn(ti.env)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// refreshIndex refreshes the index of the worktree at path (if any) once
// its agent has stopped. A worktree checked out in the second its index
// was written has every file "racily clean": each later status or read
// through a copy of the index (the changes read here, the report, the
// diff, the merge's snapshot) re-reads and hashes every file, seconds on
// a 10,000-file repository. Refreshed, they only compare file times.
// Only the files' times in the index change; a failure (another git
// holding the index) leaves it as it was.
func refreshIndex(ctx context.Context, path string) {
	if path == "" {
		return
	}
	_, _ = git(ctx, path, "update-index", "-q", "--refresh")
}

// diffArgs are the options of every diff read here: plain, stable output.
var diffArgs = []string{"--no-color", "--no-ext-diff", "--no-renames"}

// worktreeChanges reads the changes of the worktree at path (its files as
// they are now) against base.
func worktreeChanges(ctx context.Context, path, base string) (changes, error) {
	var c changes
	err := withTempIndex(ctx, path, func(env []string) error {
		var err error
		c, err = diffChanges(ctx, path, env, "--cached", base)
		return err
	})
	return c, err
}

// branchChanges reads the changes committed on branch against base.
func branchChanges(ctx context.Context, repo, base, branch string) (changes, error) {
	return diffChanges(ctx, repo, nil, base, "refs/heads/"+branch)
}

// diffChanges runs git diff with revs in dir once, as --numstat (for the
// file list and counts) and --stat (for the text): with -z, every numstat
// record ends in a NUL, and the stat text is what follows the last one.
func diffChanges(ctx context.Context, dir string, env []string, revs ...string) (changes, error) {
	var c changes
	args := append(append([]string{"diff", "--numstat", "--stat=160", "-z"}, diffArgs...), revs...)
	out, err := gitWith(ctx, dir, env, args...)
	if err != nil {
		return c, err
	}
	numstat, stat := "", out
	if i := strings.LastIndexByte(out, 0); i >= 0 {
		numstat, stat = out[:i+1], out[i+1:]
	}
	c.Files, c.Stat.Insertions, c.Stat.Deletions = parseNumstat(numstat)
	c.Stat.Files = len(c.Files)
	if c.Stat.Files == 0 {
		c.Files = []string{}
		return c, nil
	}
	c.Stat.Text = strings.TrimSpace(stat)
	return c, nil
}

// parseNumstat reads `git diff --numstat -z` without renames: records of
// "added<TAB>deleted<TAB>path<NUL>", with "-" counts for binary files.
func parseNumstat(out string) (files []string, ins, del int) {
	for rec := range strings.SplitSeq(out, "\x00") {
		a, rest, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		d, path, ok := strings.Cut(rest, "\t")
		if !ok || path == "" {
			continue
		}
		n, _ := strconv.Atoi(a)
		m, _ := strconv.Atoi(d)
		ins, del = ins+n, del+m
		files = append(files, path)
	}
	slices.Sort(files)
	return files, ins, del
}

// taskChanges reads t's changes from git: live from the worktree when it
// exists, else from the branch when it still exists. ok is false when
// neither exists any more.
func (w *Worktrees) taskChanges(ctx context.Context, t Task) (c changes, ok bool, err error) {
	if t.BaseSHA == "" {
		return c, false, nil
	}
	if t.WorktreePath != "" {
		if st, err := os.Stat(t.WorktreePath); err == nil && st.IsDir() {
			if c, err = worktreeChanges(ctx, t.WorktreePath, t.BaseSHA); err != nil {
				return c, false, err
			}
			c.Commits, _ = w.CommitsAhead(ctx, t.BaseSHA, t.Branch)
			return c, true, nil
		}
	}
	if t.Branch == "" {
		return c, false, nil
	}
	if _, err := git(ctx, w.repo, "show-ref", "--verify", "--quiet", "refs/heads/"+t.Branch); err != nil {
		return c, false, nil
	}
	if c, err = branchChanges(ctx, w.repo, t.BaseSHA, t.Branch); err != nil {
		return c, false, err
	}
	c.Commits, _ = w.CommitsAhead(ctx, t.BaseSHA, t.Branch)
	return c, true, nil
}
