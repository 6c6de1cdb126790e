package orchestrator

import (
	"bufio"
	"context"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/gitx"
)

// DiffLimit caps a task diff's text.
const DiffLimit = 2 << 20

// Diff is what merging a task would take, file by file, against the commit
// the task started from: the commits on its branch and, while its worktree
// exists, the worktree's uncommitted and untracked files (not ignored
// ones), which the merge commits as they are. It is read as the merge
// reads the worktree: through a copy of its index into which every file
// was added (withTempIndex), so the two cannot disagree.
type Diff struct {
	Base   string `json:"base_sha"`
	Branch string `json:"branch"`
	// Source is where the changes were read: "worktree" (the branch plus
	// the worktree's files as they are), "branch" (the worktree is gone),
	// or "" when neither exists any more (the task was merged or ended).
	Source string   `json:"source"`
	Files  []string `json:"files"` // every file the diff changes, sorted
	// Uncommitted are the files of Files whose change is not committed
	// on the branch yet; the merge commits them.
	Uncommitted []string `json:"uncommitted"`
	Text        string   `json:"text"`      // the unified diff, cut at DiffLimit
	Truncated   bool     `json:"truncated"` // Text was cut
}

// Diff returns task id's changes as its merge would take them.
func (o *Orchestrator) Diff(ctx context.Context, id string) (Diff, error) {
	t, err := o.store.Get(ctx, id)
	if err != nil {
		return Diff{}, err
	}
	d := Diff{Base: t.BaseSHA, Branch: t.Branch, Files: []string{}, Uncommitted: []string{}}
	if t.BaseSHA == "" {
		return d, nil
	}
	if t.WorktreePath != "" {
		if st, err := os.Stat(t.WorktreePath); err == nil && st.IsDir() {
			err := withTempIndex(ctx, t.WorktreePath, func(env []string) error {
				d.Source = "worktree"
				return d.read(ctx, t.WorktreePath, env, "refs/heads/"+t.Branch, "--cached", t.BaseSHA)
			})
			return d, err
		}
	}
	if t.Branch == "" {
		return d, nil
	}
	if _, err := git(ctx, o.wt.repo, "show-ref", "--verify", "--quiet", "refs/heads/"+t.Branch); err != nil {
		return d, nil
	}
	d.Source = "branch"
	return d, d.read(ctx, o.wt.repo, nil, "", t.BaseSHA, "refs/heads/"+t.Branch)
}

// read fills d from git diff with revs in dir; committed, when not "",
// is the branch whose tip the files are compared with to find those not
// committed yet (the index of env against it).
func (d *Diff) read(ctx context.Context, dir string, env []string, committed string, revs ...string) error {
	names := func(revs ...string) ([]string, error) {
		out, err := gitWith(ctx, dir, env, append(append([]string{"diff", "--name-only", "-z"}, diffArgs...), revs...)...)
		if err != nil {
			return nil, err
		}
		files := []string{}
		for f := range strings.SplitSeq(out, "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
		slices.Sort(files)
		return files, nil
	}
	var err error
	if d.Files, err = names(revs...); err != nil {
		return err
	}
	if committed != "" {
		if _, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", committed+"^{commit}"); err != nil {
			committed = "HEAD"
		}
		if d.Uncommitted, err = names("--cached", committed); err != nil {
			return err
		}
	}
	if len(d.Files) == 0 {
		return nil
	}
	var buf []byte
	args := append(append([]string{"diff", "--submodule=short"}, diffArgs...), revs...)
	err = gitx.Run(ctx, gitx.Options{Dir: dir, Env: env, Timeout: gitTimeout}, func(r *bufio.Reader) error {
		b, err := io.ReadAll(io.LimitReader(r, DiffLimit+1))
		buf = b
		if err != nil {
			return err
		}
		if len(b) > DiffLimit {
			d.Truncated = true
			return gitx.ErrEnough
		}
		return nil
	}, append(args, "--")...)
	if d.Truncated {
		buf = buf[:DiffLimit]
		if i := strings.LastIndexByte(string(buf), '\n'); i >= 0 {
			buf = buf[:i+1]
		}
		err = nil
	}
	d.Text = string(buf)
	return err
}
