package mcpcoding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace"
)

type listFilesIn struct {
	Path            string   `json:"path,omitempty" jsonschema:"Workspace-relative directory to search under" schema:"default=."`
	Patterns        []string `json:"patterns,omitempty" jsonschema:"Glob patterns; a file is listed if it matches any (default **/*)" schema:"default=**/*,implicit"`
	Glob            string   `json:"glob,omitempty" jsonschema:"A single glob pattern, used when patterns is empty"`
	ExcludePatterns []string `json:"exclude_patterns,omitempty" jsonschema:"Glob patterns of files (or directories) to leave out" schema:"default="`
	IncludeHidden   bool     `json:"include_hidden,omitempty" jsonschema:"Include names starting with a dot" schema:"default=false"`
	IncludeIgnored  bool     `json:"include_ignored,omitempty" jsonschema:"Include default-excluded and git-ignored paths" schema:"default=false"`
	MaxResults      int      `json:"max_results,omitempty" jsonschema:"Most files to return" schema:"default=5000,min=1,max=50000"`
	Sort            string   `json:"sort,omitempty" jsonschema:"Order of the files" schema:"default=path,enum=path|modified"`
}

func (s *Server) listFiles() tool {
	return define("list_files", "List workspace files matching glob patterns, with a result cap.",
		hints("List files", true, false, true, false),
		func(ctx context.Context, in listFilesIn) (*workspace.ListFilesResult, error) {
			return workspace.ListFiles(ctx, s.root, workspace.ListFilesOptions{Path: in.Path, Patterns: in.Patterns, Glob: in.Glob,
				Exclude: in.ExcludePatterns, IncludeHidden: in.IncludeHidden, IncludeIgnored: in.IncludeIgnored, MaxResults: in.MaxResults, Sort: in.Sort})
		})
}
