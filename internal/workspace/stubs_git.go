package workspace

import "context"

// GitStatus reports git status (git_status). Stub.
func GitStatus(ctx context.Context, r *Root, path string, untracked bool, maxEntries int) (map[string]any, error) {
	return nil, Errorf("INTERNAL_ERROR", nil, "git_status is not available yet")
}

// DiffOptions are git_diff's inputs. Originals maps workspace-relative
// paths to their first-seen content (nil: the file did not exist) for the
// fallback diff outside a repository.
type DiffOptions struct {
	Paths                  []string
	Staged, Unstaged       bool
	ContextLines, MaxBytes int
	Originals              map[string]*string
}

// GitDiff diffs the workspace (git_diff). Stub.
func GitDiff(ctx context.Context, r *Root, o DiffOptions) (map[string]any, error) {
	return nil, Errorf("INTERNAL_ERROR", nil, "git_diff is not available yet")
}
