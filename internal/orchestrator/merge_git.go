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
	if _, err := gitWriting(ctx, w.repo, []string{dir}, "worktree", "add", "--detach", path, commit); err != nil {
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
	ri, err := w.info(ctx)
	if err != nil {
		return mergePlan{}, err
	}
	base, err := git(ctx, ri.top, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil || base == "" {
		return mergePlan{}, fault.New(fault.Conflict, "the checkout at %s is not on a branch (detached HEAD)", ri.top).
			WithHint("check out the branch to merge into, then merge again")
	}
	branch := "refs/heads/" + t.Branch
	tip, err := git(ctx, ri.top, "rev-parse", "--verify", "--quiet", branch+"^{commit}")
	if err != nil {
		return mergePlan{}, fault.New(fault.NotFound, "branch %s of task %s does not exist: there is nothing to merge", t.Branch, t.ID).
			WithHint("it was deleted when the task ended without keeping its branch")
	}
	if work != "" {
		tip = work
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
		args := append([]string{"commit-tree", "--no-gpg-sign", lines[0]}, parents...)
		if p.commit, err = gitWith(ctx, ri.top, identity(ctx, ri.top), append(args, "-m", msg)...); err != nil {
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

// advance moves the checkout's branch to the planned commit: refused when
// the checkout has uncommitted changes to a merged file, or when its
// branch moved since the plan; otherwise a fast-forward, which git applies
// to the index and the files as a whole or not at all.
func (w *Worktrees) advance(ctx context.Context, p mergePlan) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	st, err := git(ctx, p.top, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return fault.Wrap(fault.Internal, err, "failed to read the checkout's status")
	}
	merged := map[string]bool{}
	for _, f := range p.files {
		merged[f] = true
	}
	var dirty []string
	for line := range strings.SplitSeq(st, "\n") {
		if len(line) > 3 && merged[strings.Trim(line[3:], `"`)] {
			dirty = append(dirty, line[3:])
		}
	}
	if len(dirty) > 0 {
		return fault.New(fault.Conflict, "the checkout at %s has uncommitted changes to files the merge changes: %s; nothing was merged",
			p.top, strings.Join(dirty, ", ")).
			WithHint("commit or stash them, then merge again")
	}
	if _, err := git(ctx, p.top, "merge", "--ff-only", "--quiet", p.commit); err != nil {
		return fault.Wrap(fault.Conflict, err, "the checkout could not be fast-forwarded to the merge; nothing was merged").
			WithHint("if " + p.base + " moved meanwhile, merge again")
	}
	return nil
}
