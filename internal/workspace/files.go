package workspace

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
)

// list_files (docs/coding-tools.md#list_files).

const (
	filesDefaultMaxResults = 5000
	filesMaxMaxResults     = 50000
)

// ListedFile is one list_files result.
type ListedFile struct {
	Path      string `json:"path" jsonschema:"Workspace-relative path"`
	Type      string `json:"type" jsonschema:"file or symlink"`
	SizeBytes int64  `json:"size_bytes"`
	Modified  string `json:"modified" jsonschema:"Modification time, RFC 3339 UTC"`

	info os.FileInfo
}

// ListFilesResult is list_files' result (docs/coding-tools.md#list_files).
type ListFilesResult struct {
	Path      string       `json:"path" jsonschema:"Canonical workspace-relative path of the directory searched"`
	Files     []ListedFile `json:"files"`
	Truncated bool         `json:"truncated"`
	Warnings  []string     `json:"warnings"`
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

// ListFiles globs files (list_files): a depth-first walk in path order
// below Path, pruning filtered and excluded directories, listing regular
// files and symlinks to files inside the workspace whose workspace-relative
// path matches a pattern and no exclude pattern, up to MaxResults.
func ListFiles(ctx context.Context, r *Root, o ListFilesOptions) (*ListFilesResult, error) {
	if o.MaxResults <= 0 {
		o.MaxResults = filesDefaultMaxResults
	}
	o.MaxResults = min(o.MaxResults, filesMaxMaxResults)
	switch o.Sort {
	case "":
		o.Sort = "path"
	case "path", "modified":
	default:
		return nil, Errorf(CodeInvalidArgument, map[string]any{"sort": o.Sort}, "invalid sort %q: use path or modified", o.Sort)
	}
	patterns := o.Patterns
	arg := "patterns"
	if len(patterns) == 0 {
		if o.Glob != "" {
			patterns, arg = []string{o.Glob}, "glob"
		} else {
			patterns = []string{"**/*"}
		}
	}
	include, err := CompileGlobs(arg, patterns)
	if err != nil {
		return nil, err
	}
	exclude, err := CompileGlobs("exclude_patterns", o.Exclude)
	if err != nil {
		return nil, err
	}
	base, dir, err := openDirRoot(r, o.Path)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	warnings := []string{}
	vis, err := NewVisibility(ctx, r, base, o.IncludeHidden, o.IncludeIgnored, false, &warnings)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, WalkBudget)
	defer cancel()

	files := []ListedFile{}
	truncated, timedOut := false, false
	// walk returns false to stop the whole walk.
	var walk func(d *os.Root, rel, relToBase string) bool
	walk = func(d *os.Root, rel, relToBase string) bool {
		if ctx.Err() != nil {
			timedOut = true
			return false
		}
		ents, err := readDirSorted(d)
		if err != nil {
			warnings = append(warnings, "cannot read directory "+rel+": "+ErrText(err))
			return true
		}
		for _, e := range ents {
			childBase := JoinRel(relToBase, e.Name)
			if show, _ := vis.Visible(childBase, e.Name, false); !show {
				continue
			}
			child := JoinRel(rel, e.Name)
			if exclude.Match(child) {
				continue // an excluded directory is pruned with its contents
			}
			switch {
			case e.IsDir():
				sub, err := d.OpenRoot(e.Name)
				if err != nil {
					warnings = append(warnings, "cannot open directory "+child+": "+ErrText(err))
					continue
				}
				more := walk(sub, child, childBase)
				sub.Close()
				if !more {
					return false
				}
				continue
			case e.IsRegular(), e.IsSymlink():
			default:
				continue
			}
			if !include.Match(child) {
				continue
			}
			f, ok := r.listedFile(d, e, child)
			if !ok {
				continue
			}
			if len(files) == o.MaxResults {
				truncated = true
				return false
			}
			files = append(files, f)
		}
		return true
	}
	walk(dir, base, "")

	if o.Sort == "modified" {
		slices.SortStableFunc(files, func(a, b ListedFile) int {
			if c := a.info.ModTime().Compare(b.info.ModTime()); c != 0 {
				return c
			}
			return strings.Compare(a.Path, b.Path)
		})
	}
	if truncated {
		warnings = append(warnings, "result limit reached: "+strconv.Itoa(o.MaxResults)+" files returned; narrow the patterns or raise max_results")
	}
	if timedOut {
		truncated = true
		warnings = append(warnings, "listing time limit reached: the result is partial")
	}
	return &ListFilesResult{Path: base, Files: files, Truncated: truncated, Warnings: warnings}, nil
}

// listedFile describes a regular file, or a symlink whose target is a
// file inside the workspace (lstat data, like list_dir); anything else,
// including links that dangle or resolve outside, is dropped.
func (r *Root) listedFile(d *os.Root, e Dirent, rel string) (ListedFile, bool) {
	fi, err := d.Lstat(e.Name)
	if err != nil {
		return ListedFile{}, false
	}
	typ := "file"
	switch {
	case fi.Mode().IsRegular():
	case fi.Mode()&os.ModeSymlink != 0:
		res, err := r.Existing(rel)
		if err != nil {
			return ListedFile{}, false
		}
		ti, err := r.FS.Stat(res.Rel)
		if err != nil || !ti.Mode().IsRegular() {
			return ListedFile{}, false
		}
		typ = "symlink"
	default:
		return ListedFile{}, false
	}
	return ListedFile{Path: rel, Type: typ, SizeBytes: fi.Size(), Modified: formatTime(fi.ModTime()), info: fi}, true
}
