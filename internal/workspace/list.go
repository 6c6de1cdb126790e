package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// list_dir (docs/coding-tools.md#list_dir).

const (
	listDefaultMaxEntries = 1000
	listMaxMaxEntries     = 10000
	listMaxDepth          = 20
	// WalkBudget bounds the work of one listing or search; past it the
	// result is partial and says so.
	WalkBudget = 10 * time.Second
)

// ListDirEntry is one list_dir entry.
type ListDirEntry struct {
	Name          string `json:"name"`
	Path          string `json:"path" jsonschema:"Workspace-relative path"`
	Type          string `json:"type" jsonschema:"file, directory, symlink or other"`
	SizeBytes     int64  `json:"size_bytes"`
	Modified      string `json:"modified" jsonschema:"Modification time, RFC 3339 UTC"`
	IsHidden      bool   `json:"is_hidden"`
	IsIgnored     bool   `json:"is_ignored" jsonschema:"Shown only because include_ignored is set"`
	SymlinkTarget string `json:"symlink_target,omitempty" jsonschema:"The raw link text of a symlink"`
}

// ListDirResult is list_dir's result (docs/coding-tools.md#list_dir).
type ListDirResult struct {
	Path      string         `json:"path" jsonschema:"Canonical workspace-relative path of the directory"`
	Entries   []ListDirEntry `json:"entries"`
	Truncated bool           `json:"truncated"`
	Warnings  []string       `json:"warnings"`
}

// ListDirOptions are list_dir's inputs.
type ListDirOptions struct {
	Path                          string
	Recursive                     bool
	MaxDepth, MaxEntries          int
	IncludeHidden, IncludeIgnored bool
	Sort                          string
}

// listCandidate is an eligible entry before it is stat'ed: only the sort
// by modification time needs the stat of every entry; the others stat
// just the entries returned.
type listCandidate struct {
	name, rel string
	typ       fs.FileMode
	hidden    bool
	ignored   bool
	info      fs.FileInfo // set when already stat'ed
}

// ListDir lists a directory (list_dir): its entries, or with recursive the
// entries down to max_depth levels, filtered per
// docs/coding-tools.md#visibility-filters, sorted over the whole result and cut
// at max_entries.
func ListDir(ctx context.Context, r *Root, o ListDirOptions) (*ListDirResult, error) {
	if o.Path == "" {
		o.Path = "."
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 1
	}
	o.MaxDepth = min(o.MaxDepth, listMaxDepth)
	if o.MaxEntries <= 0 {
		o.MaxEntries = listDefaultMaxEntries
	}
	o.MaxEntries = min(o.MaxEntries, listMaxMaxEntries)
	switch o.Sort {
	case "":
		o.Sort = "name"
	case "name", "type", "modified":
	default:
		return nil, Errorf(CodeInvalidArgument, map[string]any{"sort": o.Sort}, "invalid sort %q: use name, type or modified", o.Sort)
	}
	base, dir, err := openDirRoot(r, o.Path)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	warnings := []string{}
	vis, err := NewVisibility(ctx, r, base, o.IncludeHidden, o.IncludeIgnored, true, &warnings)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, WalkBudget)
	defer cancel()

	less := listDirLess(o.Sort)
	var (
		cands     []listCandidate
		truncated bool
		timedOut  bool
	)
	// compact keeps the first MaxEntries candidates in sort order once
	// there are many more, so memory stays bounded on huge trees.
	compact := func() {
		slices.SortFunc(cands, less)
		if len(cands) > o.MaxEntries {
			truncated = true
			clear(cands[o.MaxEntries:])
			cands = cands[:o.MaxEntries]
		}
	}
	var walk func(d *os.Root, rel, relToBase string, depth int, parentIgnored bool)
	walk = func(d *os.Root, rel, relToBase string, depth int, parentIgnored bool) {
		if ctx.Err() != nil {
			timedOut = true
			return
		}
		ents, err := readDirSorted(d)
		if err != nil {
			warnings = append(warnings, "cannot read directory "+rel+": "+ErrText(err))
			return
		}
		for _, e := range ents {
			childBase := JoinRel(relToBase, e.Name)
			show, ignored := vis.Visible(childBase, e.Name, parentIgnored)
			if !show {
				continue
			}
			c := listCandidate{name: e.Name, rel: JoinRel(rel, e.Name), typ: e.Type, hidden: strings.HasPrefix(e.Name, "."), ignored: ignored}
			if o.Sort == "modified" {
				if fi, err := d.Lstat(e.Name); err == nil {
					c.info = fi
				} else {
					continue // vanished
				}
			}
			cands = append(cands, c)
			if len(cands) >= max(4*o.MaxEntries, 4096) {
				compact()
			}
			if o.Recursive && depth < o.MaxDepth && e.IsDir() {
				sub, err := d.OpenRoot(e.Name)
				if err != nil {
					warnings = append(warnings, "cannot open directory "+c.rel+": "+ErrText(err))
					continue
				}
				walk(sub, c.rel, childBase, depth+1, ignored)
				sub.Close()
			}
		}
	}
	walk(dir, base, "", 1, false)
	compact()

	entries := make([]ListDirEntry, 0, len(cands))
	for _, c := range cands {
		if e, ok := r.listDirEntry(c); ok {
			entries = append(entries, e)
		}
	}
	if truncated {
		warnings = append(warnings, "entry limit reached: "+strconv.Itoa(o.MaxEntries)+" entries returned; narrow the path or raise max_entries")
	}
	if timedOut {
		truncated = true
		warnings = append(warnings, "listing time limit reached: the result is partial")
	}
	return &ListDirResult{Path: base, Entries: entries, Truncated: truncated, Warnings: warnings}, nil
}

// listDirLess orders candidates by the requested key: name (then path),
// type string (then name, path), or modification time, oldest first (then
// name, path).
func listDirLess(sort string) func(a, b listCandidate) int {
	byName := func(a, b listCandidate) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.rel, b.rel)
	}
	switch sort {
	case "type":
		return func(a, b listCandidate) int {
			if c := strings.Compare(entryType(a.typ), entryType(b.typ)); c != 0 {
				return c
			}
			return byName(a, b)
		}
	case "modified":
		return func(a, b listCandidate) int {
			if c := a.info.ModTime().Compare(b.info.ModTime()); c != 0 {
				return c
			}
			return byName(a, b)
		}
	}
	return byName
}

// entryType is the profile's type string for a file mode.
func entryType(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "file"
	}
	return "other"
}

// listDirEntry stats a candidate (lstat: a symlink is described, never
// followed) and fills its entry. A symlink's raw target text is given
// unless it resolves outside the workspace. An entry that vanished since
// the directory was read is dropped.
func (r *Root) listDirEntry(c listCandidate) (ListDirEntry, bool) {
	e := ListDirEntry{Name: c.name, Path: c.rel, IsHidden: c.hidden, IsIgnored: c.ignored}
	fi := c.info
	if fi == nil {
		var err error
		if fi, err = r.FS.Lstat(c.rel); err != nil {
			return e, false
		}
	}
	e.Type = entryType(fi.Mode())
	e.SizeBytes = fi.Size()
	e.Modified = formatTime(fi.ModTime())
	if e.Type == "symlink" {
		if t, err := r.FS.Readlink(c.rel); err == nil {
			if _, err := r.Existing(c.rel); !isCode(err, CodeSymlinkEscape) {
				e.SymlinkTarget = t
			}
		}
	}
	return e, true
}

// formatTime is RFC 3339 in UTC with a "Z", with the fraction when there
// is one.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func isCode(err error, code Code) bool { return CodeOf(err) == code }

// openDirRoot resolves a directory argument
// (docs/coding-tools.md#existing-paths) and opens it anchored: NOT_A_DIRECTORY
// when it is something else. It returns the canonical workspace-relative path
// and the directory as an os.Root inside r.FS.
func openDirRoot(r *Root, p string) (string, *os.Root, error) {
	if p == "" {
		p = "."
	}
	res, err := r.Existing(p)
	if err != nil {
		return "", nil, err
	}
	fi, err := r.FS.Stat(res.Rel)
	if err != nil {
		return "", nil, OpenError(res.Rel, err)
	}
	if !fi.IsDir() {
		return "", nil, Errorf(CodeNotADirectory, map[string]any{"path": res.Rel}, "%s is not a directory", res.Rel)
	}
	if res.Rel == "." {
		d, err := r.FS.OpenRoot(".")
		if err != nil {
			return "", nil, OpenError(res.Rel, err)
		}
		return res.Rel, d, nil
	}
	d, err := r.FS.OpenRoot(res.Rel)
	if err != nil {
		return "", nil, OpenError(res.Rel, err)
	}
	return res.Rel, d, nil
}

// OpenError maps an anchored open failure to the profile's codes.
func OpenError(rel string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf(CodeNotFound, map[string]any{"path": rel}, "not found: %s", rel)
	case strings.Contains(err.Error(), "escapes"):
		return Errorf(CodeSymlinkEscape, map[string]any{"path": rel}, "symlink escape denied: %s resolves outside the workspace", rel)
	}
	return Errorf(CodeInternal, map[string]any{"path": rel}, "cannot open %s: %v", rel, err)
}

// ErrText is an error's text without the os package's op/path wrapping.
func ErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
