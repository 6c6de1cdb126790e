package mcpcoding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace/gitinfo"
)

type gitDiffIn struct {
	Path         string   `json:"path,omitempty" jsonschema:"A single path filter"`
	Paths        []string `json:"paths,omitempty" jsonschema:"Path filters" schema:"default="`
	Staged       bool     `json:"staged,omitempty" jsonschema:"Include staged changes (index against HEAD)" schema:"default=false"`
	Unstaged     bool     `json:"unstaged,omitempty" jsonschema:"Include unstaged changes (work tree against index)" schema:"default=true"`
	ContextLines int      `json:"context_lines,omitempty" jsonschema:"Lines of context around each change" schema:"default=3,min=0,max=20"`
	MaxBytes     int      `json:"max_bytes,omitempty" jsonschema:"Most bytes of diff text" schema:"default=262144,min=1,max=1048576"`
}

func (s *Server) gitDiff() tool {
	return define("git_diff", "Show a bounded unified diff of the workspace's changes, optionally filtered by paths.",
		hints("Git diff", true, false, true, false),
		func(ctx context.Context, in gitDiffIn) (*gitinfo.DiffResult, error) {
			paths := in.Paths
			if in.Path != "" {
				paths = append([]string{in.Path}, paths...)
			}
			return gitinfo.Diff(ctx, s.root, gitinfo.DiffOptions{Paths: paths, Staged: in.Staged, Unstaged: in.Unstaged,
				ContextLines: in.ContextLines, MaxBytes: in.MaxBytes, Originals: s.patcher.Originals()})
		})
}
