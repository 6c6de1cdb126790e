package coding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace"
)

type listDirIn struct {
	Path           string `json:"path"`
	Recursive      bool   `json:"recursive"`
	MaxDepth       int    `json:"max_depth"`
	MaxEntries     int    `json:"max_entries"`
	IncludeHidden  bool   `json:"include_hidden"`
	IncludeIgnored bool   `json:"include_ignored"`
	Sort           string `json:"sort"`
}

func (s *Server) listDir() tool {
	return define("list_dir", "List the entries of a workspace directory, optionally recursing to a bounded depth.",
		hints("List directory", true, false, true, false),
		object(nil,
			"path", str("Workspace-relative directory").def("."),
			"recursive", boolean("Descend into subdirectories (up to max_depth)").def(false),
			"max_depth", integer("Depth to list; 1 is the immediate children", 1, 20).def(1),
			"max_entries", integer("Most entries to return", 1, 10000).def(1000),
			"include_hidden", boolean("Include names starting with a dot").def(false),
			"include_ignored", boolean("Include default-excluded and git-ignored paths").def(false),
			"sort", str("Order of the entries").def("name").oneOf("name", "type", "modified"),
		),
		map[string]any{"path": tString, "entries": tArray, "truncated": tBool},
		func(ctx context.Context, in listDirIn) (map[string]any, error) {
			return workspace.ListDir(ctx, s.root, workspace.ListDirOptions{Path: in.Path, Recursive: in.Recursive, MaxDepth: in.MaxDepth,
				MaxEntries: in.MaxEntries, IncludeHidden: in.IncludeHidden, IncludeIgnored: in.IncludeIgnored, Sort: in.Sort})
		})
}
