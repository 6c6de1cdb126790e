package coding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace"
)

type listFilesIn struct {
	Path            string   `json:"path"`
	Patterns        []string `json:"patterns"`
	Glob            string   `json:"glob"`
	ExcludePatterns []string `json:"exclude_patterns"`
	IncludeHidden   bool     `json:"include_hidden"`
	IncludeIgnored  bool     `json:"include_ignored"`
	MaxResults      int      `json:"max_results"`
	Sort            string   `json:"sort"`
}

func (s *Server) listFiles() tool {
	return define("list_files", "List workspace files matching glob patterns, with a result cap.",
		hints("List files", true, false, true, false),
		object(nil,
			"path", str("Workspace-relative directory to search under").def("."),
			"patterns", strList("Glob patterns; a file is listed if it matches any (default **/*)").implicitDef([]string{"**/*"}),
			"glob", str("A single glob pattern, used when patterns is empty"),
			"exclude_patterns", strList("Glob patterns of files (or directories) to leave out").def([]string{}),
			"include_hidden", boolean("Include names starting with a dot").def(false),
			"include_ignored", boolean("Include default-excluded and git-ignored paths").def(false),
			"max_results", integer("Most files to return", 1, 50000).def(5000),
			"sort", str("Order of the files").def("path").oneOf("path", "modified"),
		),
		map[string]any{"path": tString, "files": tArray, "truncated": tBool},
		func(ctx context.Context, in listFilesIn) (map[string]any, error) {
			return workspace.ListFiles(ctx, s.root, workspace.ListFilesOptions{Path: in.Path, Patterns: in.Patterns, Glob: in.Glob,
				Exclude: in.ExcludePatterns, IncludeHidden: in.IncludeHidden, IncludeIgnored: in.IncludeIgnored, MaxResults: in.MaxResults, Sort: in.Sort})
		})
}
