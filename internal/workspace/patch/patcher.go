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

// AffectedFile is one file a patch touches.
type AffectedFile struct {
	Path      string `json:"path" jsonschema:"Workspace-relative path (the destination of a move)"`
	OldPath   string `json:"old_path,omitempty" jsonschema:"The source of a move"`
	Operation string `json:"operation" jsonschema:"add, update, delete or move"`
}

// Result is apply_patch's result (docs/coding-tools.md#apply_patch).
type Result struct {
	DryRun        bool           `json:"dry_run"`
	Clean         bool           `json:"clean" jsonschema:"Every hunk matched exactly (no relaxed matching)"`
	Summary       string         `json:"summary" jsonschema:"One line per operation: A, M, D or R (old -> new)"`
	AffectedFiles []AffectedFile `json:"affected_files"`
	Warnings      []string       `json:"warnings"`
}

// Apply applies (or, with dryRun, checks) a patch: phase 1 parses the whole
// envelope, phase 2 validates every path and computes every resulting file
// in memory, phase 3 (skipped by dryRun) commits them all or none. It
// returns the result or a *fault.Error with the profile's code (workspace.Errorf).
func (p *Patcher) Apply(r *workspace.Root, text string, dryRun bool) (*Result, error) {
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
	return &Result{DryRun: dryRun, Clean: !pl.relaxed, Summary: describe(pl), AffectedFiles: pl.affected, Warnings: pl.warnings}, nil
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
