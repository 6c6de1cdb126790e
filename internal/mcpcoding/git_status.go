package mcpcoding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace/gitinfo"
)

type gitStatusIn struct {
	Path             string `json:"path,omitempty" jsonschema:"Workspace-relative path to scope the status to" schema:"default=."`
	IncludeUntracked bool   `json:"include_untracked,omitempty" jsonschema:"List untracked files" schema:"default=true"`
	MaxEntries       int    `json:"max_entries,omitempty" jsonschema:"Most entries to return" schema:"default=1000,min=1,max=10000"`
}

func (s *Server) gitStatus() tool {
	return define("git_status", "Report the git working tree status of the workspace (branch, upstream, changed files).",
		hints("Git status", true, false, true, false),
		func(ctx context.Context, in gitStatusIn) (*gitinfo.StatusResult, error) {
			return gitinfo.Status(ctx, s.root, in.Path, in.IncludeUntracked, in.MaxEntries)
		})
}
