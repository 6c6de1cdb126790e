package mcpcoding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace"
)

type listDirIn struct {
	Path           string `json:"path,omitempty" jsonschema:"Workspace-relative directory" schema:"default=."`
	Recursive      bool   `json:"recursive,omitempty" jsonschema:"Descend into subdirectories (up to max_depth)" schema:"default=false"`
	MaxDepth       int    `json:"max_depth,omitempty" jsonschema:"Depth to list; 1 is the immediate children" schema:"default=1,min=1,max=20"`
	MaxEntries     int    `json:"max_entries,omitempty" jsonschema:"Most entries to return" schema:"default=1000,min=1,max=10000"`
	IncludeHidden  bool   `json:"include_hidden,omitempty" jsonschema:"Include names starting with a dot" schema:"default=false"`
	IncludeIgnored bool   `json:"include_ignored,omitempty" jsonschema:"Include default-excluded and git-ignored paths" schema:"default=false"`
	Sort           string `json:"sort,omitempty" jsonschema:"Order of the entries" schema:"default=name,enum=name|type|modified"`
}

func (s *Server) listDir() tool {
	return define("list_dir", "List the entries of a workspace directory, optionally recursing to a bounded depth.",
		hints("List directory", true, false, true, false),
		func(ctx context.Context, in listDirIn) (*workspace.ListDirResult, error) {
			return workspace.ListDir(ctx, s.root, workspace.ListDirOptions{Path: in.Path, Recursive: in.Recursive, MaxDepth: in.MaxDepth,
				MaxEntries: in.MaxEntries, IncludeHidden: in.IncludeHidden, IncludeIgnored: in.IncludeIgnored, Sort: in.Sort})
		})
}
