package workspace

import "context"

// ReadFile reads a text slice (read_file). Stub: replaced by the real one.
func ReadFile(r *Root, path string, start int, end *int, maxBytes int) (map[string]any, error) {
	return nil, Errorf("INTERNAL_ERROR", nil, "read_file is not available yet")
}

// ListDirOptions are list_dir's inputs.
type ListDirOptions struct {
	Path                          string
	Recursive                     bool
	MaxDepth, MaxEntries          int
	IncludeHidden, IncludeIgnored bool
	Sort                          string
}

// ListDir lists a directory (list_dir). Stub.
func ListDir(ctx context.Context, r *Root, o ListDirOptions) (map[string]any, error) {
	return nil, Errorf("INTERNAL_ERROR", nil, "list_dir is not available yet")
}

// ListFilesOptions are list_files' inputs.
type ListFilesOptions struct {
	Path                          string
	Patterns                      []string
	Glob                          string
	Exclude                       []string
	IncludeHidden, IncludeIgnored bool
	MaxResults                    int
	Sort                          string
}

// ListFiles globs files (list_files). Stub.
func ListFiles(ctx context.Context, r *Root, o ListFilesOptions) (map[string]any, error) {
	return nil, Errorf("INTERNAL_ERROR", nil, "list_files is not available yet")
}

// SearchOptions are search_text's inputs.
type SearchOptions struct {
	Query, Path                               string
	Regex, CaseSensitive                      bool
	Include, Exclude                          []string
	ContextLines, MaxResults, MaxPreviewBytes int
}

// SearchText searches files (search_text). Stub.
func SearchText(ctx context.Context, r *Root, o SearchOptions) (map[string]any, error) {
	return nil, Errorf("INTERNAL_ERROR", nil, "search_text is not available yet")
}
