package coding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace"
)

type gitStatusIn struct {
	Path             string `json:"path"`
	IncludeUntracked bool   `json:"include_untracked"`
	MaxEntries       int    `json:"max_entries"`
}

func (s *Server) gitStatus() tool {
	return define("git_status", "Report the git working tree status of the workspace (branch, upstream, changed files).",
		hints("Git status", true, false, true, false),
		object(nil,
			"path", str("Workspace-relative path to scope the status to").def("."),
			"include_untracked", boolean("List untracked files").def(true),
			"max_entries", integer("Most entries to return", 1, 10000).def(1000),
		),
		map[string]any{"is_repo": tBool, "branch": tString, "head": tString, "upstream": tString, "ahead": tInt, "behind": tInt,
			"clean": tBool, "entries": tArray, "truncated": tBool},
		func(ctx context.Context, in gitStatusIn) (map[string]any, error) {
			return workspace.GitStatus(ctx, s.root, in.Path, in.IncludeUntracked, in.MaxEntries)
		})
}
