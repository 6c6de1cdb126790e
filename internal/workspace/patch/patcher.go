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
	mu        sync.Mutex
	originals map[string]*string
}

// NewPatcher returns a Patcher.
func NewPatcher() *Patcher { return &Patcher{originals: map[string]*string{}} }

// Apply applies (or, with dryRun, checks) a patch. Stub.
func (p *Patcher) Apply(r *workspace.Root, text string, dryRun bool) (map[string]any, error) {
	return nil, workspace.Errorf("INTERNAL_ERROR", nil, "apply_patch is not available yet")
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
