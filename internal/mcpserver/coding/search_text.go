package coding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace"
)

type searchTextIn struct {
	Query           string   `json:"query"`
	Path            string   `json:"path"`
	Regex           bool     `json:"regex"`
	CaseSensitive   bool     `json:"case_sensitive"`
	IncludeGlobs    []string `json:"include_globs"`
	Glob            string   `json:"glob"`
	ExcludeGlobs    []string `json:"exclude_globs"`
	ContextLines    int      `json:"context_lines"`
	MaxResults      int      `json:"max_results"`
	MaxPreviewBytes int      `json:"max_preview_bytes"`
}

func (s *Server) searchText() tool {
	return define("search_text", "Search workspace text files for a literal string or a regular expression, line by line.",
		hints("Search text", true, false, true, false),
		object([]string{"query"},
			"query", str("Text or regular expression (RE2 syntax) to find").nonEmpty(),
			"path", str("Workspace-relative file or directory to search").def("."),
			"regex", boolean("Treat query as a regular expression").def(false),
			"case_sensitive", boolean("Match case exactly").def(false),
			"include_globs", strList("Only files matching one of these globs").def([]string{}),
			"glob", str("One more include glob"),
			"exclude_globs", strList("Skip files matching these globs").def([]string{}),
			"context_lines", integer("Lines of context before and after each match", 0, 5).def(0),
			"max_results", integer("Most matches to return", 1, 10000).def(1000),
			"max_preview_bytes", integer("Longest preview of a matching line, in bytes", 80, 4096).def(512),
		),
		map[string]any{"query": tString, "matches": tArray, "total_matches": tInt, "truncated": tBool},
		func(ctx context.Context, in searchTextIn) (map[string]any, error) {
			globs := in.IncludeGlobs
			if in.Glob != "" {
				globs = append(globs, in.Glob)
			}
			return workspace.SearchText(ctx, s.root, workspace.SearchOptions{Query: in.Query, Path: in.Path, Regex: in.Regex,
				CaseSensitive: in.CaseSensitive, Include: globs, Exclude: in.ExcludeGlobs, ContextLines: in.ContextLines,
				MaxResults: in.MaxResults, MaxPreviewBytes: in.MaxPreviewBytes})
		})
}
