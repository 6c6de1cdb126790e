package mcpcoding

import (
	"context"

	"github.com/sudocode/sudocode/internal/workspace/search"
)

type searchTextIn struct {
	Query           string   `json:"query" jsonschema:"Text or regular expression (RE2 syntax) to find" schema:"minLength=1"`
	Path            string   `json:"path,omitempty" jsonschema:"Workspace-relative file or directory to search" schema:"default=."`
	Regex           bool     `json:"regex,omitempty" jsonschema:"Treat query as a regular expression" schema:"default=false"`
	CaseSensitive   bool     `json:"case_sensitive,omitempty" jsonschema:"Match case exactly" schema:"default=false"`
	IncludeGlobs    []string `json:"include_globs,omitempty" jsonschema:"Only files matching one of these globs" schema:"default="`
	Glob            string   `json:"glob,omitempty" jsonschema:"One more include glob"`
	ExcludeGlobs    []string `json:"exclude_globs,omitempty" jsonschema:"Skip files matching these globs" schema:"default="`
	ContextLines    int      `json:"context_lines,omitempty" jsonschema:"Lines of context before and after each match" schema:"default=0,min=0,max=5"`
	MaxResults      int      `json:"max_results,omitempty" jsonschema:"Most matches to return" schema:"default=1000,min=1,max=10000"`
	MaxPreviewBytes int      `json:"max_preview_bytes,omitempty" jsonschema:"Longest preview of a matching line, in bytes" schema:"default=512,min=80,max=4096"`
}

func (s *Server) searchText() tool {
	return define("search_text", "Search workspace text files for a literal string or a regular expression, line by line.",
		hints("Search text", true, false, true, false),
		func(ctx context.Context, in searchTextIn) (*search.Result, error) {
			globs := in.IncludeGlobs
			if in.Glob != "" {
				globs = append(globs, in.Glob)
			}
			return search.Text(ctx, s.root, search.Options{Query: in.Query, Path: in.Path, Regex: in.Regex,
				CaseSensitive: in.CaseSensitive, Include: globs, Exclude: in.ExcludeGlobs, ContextLines: in.ContextLines,
				MaxResults: in.MaxResults, MaxPreviewBytes: in.MaxPreviewBytes})
		})
}
