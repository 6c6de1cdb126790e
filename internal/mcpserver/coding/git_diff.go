package coding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace"
)

type gitDiffIn struct {
	Path         string   `json:"path"`
	Paths        []string `json:"paths"`
	Staged       bool     `json:"staged"`
	Unstaged     bool     `json:"unstaged"`
	ContextLines int      `json:"context_lines"`
	MaxBytes     int      `json:"max_bytes"`
}

func (s *Server) gitDiff() tool {
	return define("git_diff", "Show a bounded unified diff of the workspace's changes, optionally filtered by paths.",
		hints("Git diff", true, false, true, false),
		object(nil,
			"path", str("A single path filter"),
			"paths", strList("Path filters").def([]string{}),
			"staged", boolean("Include staged changes (index against HEAD)").def(false),
			"unstaged", boolean("Include unstaged changes (work tree against index)").def(true),
			"context_lines", integer("Lines of context around each change", 0, 20).def(3),
			"max_bytes", integer("Most bytes of diff text", 1, 1048576).def(262144),
		),
		map[string]any{"diff": tString, "files": tArray, "truncated": tBool, "truncated_by": tNullStr, "output_lines": tInt, "output_bytes": tInt},
		func(ctx context.Context, in gitDiffIn) (map[string]any, error) {
			paths := in.Paths
			if in.Path != "" {
				paths = append([]string{in.Path}, paths...)
			}
			return workspace.GitDiff(ctx, s.root, workspace.DiffOptions{Paths: paths, Staged: in.Staged, Unstaged: in.Unstaged,
				ContextLines: in.ContextLines, MaxBytes: in.MaxBytes, Originals: s.patcher.Originals()})
		})
}
