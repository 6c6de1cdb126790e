package search

import (
	"context"
	"sync"

	"github.com/sudocode/sudocode/internal/workspace"
)

// In a git work tree, which paths git ignores comes from one git process
// (a listing of the ignored paths, as long as a status of the tree). The
// search does not wait for it: the walk starts at once with the filters
// that need no git (hidden and default-excluded names), and files found
// before git has answered are searched, but their results are held until
// git's answer says whether they count. Once the answer is in, the walk
// prunes ignored directories before descent again.

// visibilityOf is workspace.NewVisibility; tests make its answer late.
var visibilityOf = workspace.NewVisibility

// walkEntered is called as the walk enters each directory, and
// walkDispatched when it has handed out every file: tests let git's
// answer come at those points.
var (
	walkEntered    = func(rel string, lv *lateVisibility) {}
	walkDispatched = func() {}
)

// lateVisibility is git's ignore list on its way.
type lateVisibility struct {
	static   *workspace.Visibility // the filters that need no git
	done     chan struct{}
	vis      *workspace.Visibility
	warnings []string
	err      error
}

// startVisibility asks git for the ignored paths below base, in the
// background.
func startVisibility(ctx context.Context, r *workspace.Root, base string) *lateVisibility {
	l := &lateVisibility{static: workspace.StaticVisibility(), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.vis, l.err = visibilityOf(ctx, r, base, false, false, true, &l.warnings)
	}()
	return l
}

// ready is the whole visibility once git has answered, else nil.
func (l *lateVisibility) ready() *workspace.Visibility {
	select {
	case <-l.done:
		if l.err == nil {
			return l.vis
		}
	default:
	}
	return nil
}

// wait waits for git's answer.
func (l *lateVisibility) wait() (*workspace.Visibility, error) {
	<-l.done
	return l.vis, l.err
}

// ignoredPath reports whether git ignores relToBase or a directory
// above it (git names a wholly ignored directory, not what it holds).
func ignoredPath(vis *workspace.Visibility, relToBase string) bool {
	for i := range len(relToBase) {
		if relToBase[i] == '/' && vis.IgnoredByGit(relToBase[:i]) {
			return true
		}
	}
	return vis.IgnoredByGit(relToBase)
}

// heldResult is a file's result found before git answered.
type heldResult struct {
	fr        *fileResult
	relToBase string
}

// heldResults are the results waiting for git's answer.
type heldResults struct {
	mu    sync.Mutex
	items []heldResult
}

func (h *heldResults) add(fr *fileResult, relToBase string) {
	h.mu.Lock()
	h.items = append(h.items, heldResult{fr, relToBase})
	h.mu.Unlock()
}

// release hands the results of files git does not ignore to the
// collector.
func (h *heldResults) release(vis *workspace.Visibility, col *collector) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, it := range h.items {
		if !ignoredPath(vis, it.relToBase) {
			col.add(it.fr)
		}
	}
	h.items = nil
}
