// Package patch applies the coding-tools profile's patch envelope to a
// workspace, transactionally.
package patch

import (
	"sync"

	"github.com/sudocode/sudocode/internal/workspace"
)

// Patcher applies patches one at a time and remembers the first-seen
// content of every file it changed.
type Patcher struct {
	mu        sync.Mutex // the workspace-wide lock: one patch at a time
	originals map[string]*string

	// hook, when set (tests only), runs before each filesystem step of a
	// commit or a rollback; an error makes that step fail.
	hook func(op, rel string) error
}

// NewPatcher returns a Patcher.
func NewPatcher() *Patcher { return &Patcher{originals: map[string]*string{}} }

// Apply applies (or, with dryRun, checks) a patch: phase 1 parses the whole
// envelope, phase 2 validates every path and computes every resulting file
// in memory, phase 3 (skipped by dryRun) commits them all or none. It
// returns the result fields (dry_run, clean, summary, affected_files,
// warnings) or a *workspace.Error.
func (p *Patcher) Apply(r *workspace.Root, text string, dryRun bool) (map[string]any, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r == nil || r.FS == nil {
		return nil, workspace.Errorf(workspace.CodeInternal, nil, "apply_patch: no workspace")
	}
	ops, err := parse(text)
	if err != nil {
		return nil, err
	}
	pl, err := stage(r, ops)
	if err != nil {
		return nil, err
	}
	if !dryRun {
		if err := commit(r, pl, p.hook); err != nil {
			return nil, err
		}
		p.remember(pl)
	}
	affected := make([]any, len(pl.affected))
	for i, a := range pl.affected {
		affected[i] = a
	}
	return map[string]any{
		"dry_run":        dryRun,
		"clean":          !pl.relaxed,
		"summary":        describe(pl),
		"affected_files": affected,
		"warnings":       pl.warnings,
	}, nil
}

// remember records the first-seen content of every path a commit touched
// (nil: it did not exist); the caller holds p.mu.
func (p *Patcher) remember(pl *plan) {
	for _, k := range pl.order {
		st := pl.files[k]
		if _, seen := p.originals[st.rel]; seen {
			continue
		}
		if !st.exists {
			p.originals[st.rel] = nil
			continue
		}
		s := string(st.orig)
		p.originals[st.rel] = &s
	}
}

// Originals returns a copy of the first-seen contents (nil: the file did
// not exist before this server created it).
func (p *Patcher) Originals() map[string]*string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]*string, len(p.originals))
	for k, v := range p.originals {
		out[k] = v
	}
	return out
}
