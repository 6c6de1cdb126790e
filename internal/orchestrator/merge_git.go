package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
)

// checkoutAt checks commit out in a new worktree named name, detached.
func (w *Worktrees) checkoutAt(ctx context.Context, name, commit string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ri, err := w.info(ctx)
	if err != nil {
		return "", err
	}
	dir, err := w.dirFor(ri)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fault.Wrap(fault.Unavailable, err, "failed to create the worktree directory")
	}
	// Not stopped half-way: see Add.
	if _, err := w.addWorktree(context.WithoutCancel(ctx), dir, "--detach", path, commit); err != nil {
		w.unregister(context.WithoutCancel(ctx), path)
		return "", fault.Wrap(fault.Unavailable, err, "failed to check out the merge result for the check")
	}
	return path, nil
}

// mergePlan is a merge computed but not applied.
type mergePlan struct {
	top, base, from, commit string
	files                   []string
	conflicts               []string // the files a refused merge conflicts on
}

// planMerge computes the commit that merging t's branch, or the commit
// work when not "" (its tip with the worktree's uncommitted files), into
// the base (the checkout's current branch) gives, without touching a work
// tree or a branch.
func (w *Worktrees) planMerge(ctx context.Context, t Task, work, strategy, msg string) (mergePlan, error) {
	ri, err := w.place(ctx)
	if err != nil {
		return mergePlan{}, err
	}
	// The checkout's commit and the branch it is on, in one call.
	out, err := git(ctx, ri.top, "rev-parse", "HEAD^{commit}", "--symbolic-full-name", "HEAD")
	head, full, _ := strings.Cut(out, "\n")
	if err != nil || head == "" {
		return mergePlan{}, fault.New(fault.Invalid, "repository %s has no commit yet", ri.top).
			WithHint("commit something first; tasks branch off the current HEAD")
	}
	ri.head = head
	base, onBranch := strings.CutPrefix(full, "refs/heads/")
	if !onBranch || base == "" {
		return mergePlan{}, fault.New(fault.Conflict, "the checkout at %s is not on a branch (detached HEAD)", ri.top).
			WithHint("check out the branch to merge into, then merge again")
	}
	tip := work // the snapshot read the branch already
	if tip == "" {
		var err error
		if tip, err = git(ctx, ri.top, "rev-parse", "--verify", "--quiet", "refs/heads/"+t.Branch+"^{commit}"); err != nil {
			return mergePlan{}, fault.New(fault.NotFound, "branch %s of task %s does not exist: there is nothing to merge", t.Branch, t.ID).
				WithHint("it was deleted when the task ended without keeping its branch")
		}
	}
	p := mergePlan{top: ri.top, base: base, from: ri.head}
	if _, err := git(ctx, ri.top, "merge-base", "--is-ancestor", tip, ri.head); err == nil {
		return p, fault.New(fault.Conflict, "nothing to merge: %s holds every commit of %s", base, t.Branch).
			WithHint("the agent made no change; end the task with end_task")
	}
	switch strategy {
	case MergeFF:
		if _, err := git(ctx, ri.top, "merge-base", "--is-ancestor", ri.head, tip); err != nil {
			return p, fault.New(fault.Conflict, "%s cannot be fast-forwarded to %s: it has moved on since the task started", base, t.Branch).
				WithHint("merge with strategy squash or merge")
		}
		p.commit = tip
	default:
		out, err := git(ctx, ri.top, "merge-tree", "--write-tree", "--name-only", "--no-messages", ri.head, tip)
		lines := strings.Split(out, "\n")
		if err != nil {
			if len(lines) < 2 || lines[0] == "" {
				return p, fault.Wrap(fault.Internal, err, "failed to compute the merge")
			}
			files := slices.Compact(lines[1:])
			p.conflicts = files
			return p, fault.New(fault.Conflict, "%s does not merge cleanly into %s; conflicting files: %s",
				t.Branch, base, strings.Join(files, ", ")).
				WithHint("give the agent instructions to merge " + base + " into its branch and resolve them (update_task), then merge again")
		}
		parents := []string{"-p", ri.head}
		if strategy == MergeCommit {
			parents = append(parents, "-p", tip)
		}
		args := append([]string{lines[0]}, parents...)
		if p.commit, err = commitTree(ctx, ri.top, append(args, "-m", msg)...); err != nil {
			return p, fault.Wrap(fault.Internal, err, "failed to write the merge commit")
		}
	}
	names, err := git(ctx, ri.top, "diff", "--name-only", "--no-renames", ri.head, p.commit)
	if err != nil {
		return p, fault.Wrap(fault.Internal, err, "failed to list the merged files")
	}
	if names != "" {
		p.files = strings.Split(names, "\n")
	}
	return p, nil
}

// statusPaths returns the paths git status --porcelain=v2 lists (both
// sides of a rename). Its lines, unlike v1's, never start with a space,
// which the trimmed output would lose.
func statusPaths(st string) []string {
	var paths []string
	for line := range strings.SplitSeq(st, "\n") {
		var path string
		switch {
		case strings.HasPrefix(line, "1 "):
			path = afterFields(line, 8)
		case strings.HasPrefix(line, "2 "):
			path = afterFields(line, 9)
		case strings.HasPrefix(line, "u "):
			path = afterFields(line, 10)
		case strings.HasPrefix(line, "? "):
			path = line[2:]
		}
		for p := range strings.SplitSeq(path, "\t") {
			if p != "" {
				paths = append(paths, strings.Trim(p, `"`))
			}
		}
	}
	return paths
}

// afterFields returns what follows the first n space-separated fields of line.
func afterFields(line string, n int) string {
	parts := strings.SplitN(line, " ", n+1)
	if len(parts) <= n {
		return ""
	}
	return parts[n]
}

// maxStatusPaths bounds the files advance names to git status; a larger
// merge reads the whole checkout's status.
const maxStatusPaths = 1000

// advance moves the checkout's branch to the planned commit: a
// fast-forward, which git applies to the index and the files as a whole
// or not at all, and refuses when the checkout has uncommitted changes to
// a merged file (tracked or not) or when its branch moved since the plan.
// Only a refusal reads the checkout's status, to say which files.
func (w *Worktrees) advance(ctx context.Context, p mergePlan) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Not stopped half-way when the caller goes (nor, by the sandbox's
	// Finish, when the server dies): killed, git leaves its locks in the
	// user's repository and the merged files in the work tree.
	_, err := git(context.WithoutCancel(ctx), p.top, "merge", "--ff-only", "--quiet", p.commit)
	if err == nil {
		return nil
	}
	if dirty := w.dirtyMerged(ctx, p); len(dirty) > 0 {
		return fault.New(fault.Conflict, "the checkout at %s has uncommitted changes to files the merge changes: %s; nothing was merged",
			p.top, strings.Join(dirty, ", ")).
			WithHint("commit or stash them, then merge again")
	}
	return fault.Wrap(fault.Conflict, err, "the checkout could not be fast-forwarded to the merge; nothing was merged").
		WithHint("if " + p.base + " moved meanwhile, merge again")
}

// dirtyMerged lists the merged files the checkout has uncommitted changes
// to (tracked or not). Only the merged files matter: status limited to
// them reads a few files instead of the whole checkout.
func (w *Worktrees) dirtyMerged(ctx context.Context, p mergePlan) []string {
	args := []string{"status", "--porcelain=v2", "--untracked-files=all"}
	if len(p.files) <= maxStatusPaths {
		args = append(append(args, "--"), p.files...)
	}
	st, err := git(ctx, p.top, args...)
	if err != nil {
		return nil
	}
	merged := map[string]bool{}
	for _, f := range p.files {
		merged[f] = true
	}
	var dirty []string
	for _, f := range statusPaths(st) {
		if merged[f] {
			dirty = append(dirty, f)
		}
	}
	return dirty
}
