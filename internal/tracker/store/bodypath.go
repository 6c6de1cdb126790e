package store

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
)

// Where a spec's markdown body may live. A file_path, relative to
// .sudocode, names a markdown file (.md or .markdown) inside the project
// (the directory that holds .sudocode) and outside every .git directory.
// The rule is checked on what a caller gives, on every record read from
// specs.jsonl (a merge or a pull can bring any line), and again on the
// file a symbolic link on the way leads to (bodyfs.go). Markdown only, so
// that no record can make the tracker write a source file, a script or a
// configuration file; never .git, because git runs what its config and
// hooks say.

// bodyHint says what a spec body's path may be.
const bodyHint = "a spec body is a markdown file (.md) inside the project and outside .git, e.g. specs/auth.md or ../docs/auth.md; leave file_path out for the default specs/{id}.md"

// checkBodyPath checks a cleaned, slash-separated path against the rule:
// it says why the path is refused, or "" when it is fine. rel is relative
// to .sudocode, or to the project when inProject.
func checkBodyPath(rel string, inProject bool) string {
	if !inProject {
		rel = path.Join(DirName, rel)
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "it leads outside the project"
	}
	for _, c := range strings.Split(rel, "/") {
		if isDotGit(c) {
			return "it leads into a .git directory"
		}
	}
	if !isMarkdown(rel) {
		return "it is not a markdown file (.md)"
	}
	return ""
}

// isDotGit reports whether a path component names a .git directory, in
// any case, and as Windows and macOS filesystems also read it (trailing
// dots and spaces ignored, the 8.3 short name).
func isDotGit(c string) bool {
	c = strings.TrimRight(c, ". ")
	return strings.EqualFold(c, ".git") || strings.EqualFold(c, "git~1")
}

func isMarkdown(p string) bool {
	ext := path.Ext(p)
	return strings.EqualFold(ext, ".md") || strings.EqualFold(ext, ".markdown")
}

// cleanSpecPath turns a caller's file_path into the form a record holds:
// relative to the tracker directory dirName, forward slashes, clean. A
// path through the tracker's own directory (../.sudocode/specs/x.md) is
// folded to the short form (specs/x.md).
func cleanSpecPath(p, dirName string) (string, error) {
	p = filepath.ToSlash(strings.TrimSpace(p))
	if p == "" || path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return "", fault.New(fault.Invalid, "invalid file path %q: it must be relative to .sudocode", p).WithHint(bodyHint)
	}
	if strings.HasSuffix(p, "/") {
		return "", fault.New(fault.Invalid, "invalid file path %q: it names a directory", p).WithHint(bodyHint)
	}
	clean := path.Clean(p)
	if own := "../" + dirName + "/"; strings.HasPrefix(clean, own) {
		clean = strings.TrimPrefix(clean, own)
	}
	if why := checkBodyPath(clean, false); why != "" {
		return "", fault.New(fault.Invalid, "invalid file path %q: %s", p, why).WithHint(bodyHint)
	}
	return clean, nil
}

// checkRecordPath checks a file_path read from specs.jsonl: the rule, and
// the clean form, so that two records cannot name one file two ways.
func checkRecordPath(p string) error {
	clean, err := cleanSpecPath(p, DirName)
	if err != nil {
		return err
	}
	if clean != p {
		return fmt.Errorf("file_path %q is not in clean form: write it as %q", p, clean)
	}
	return nil
}

// bodyKey is what two file_paths share when they name the same file on
// any filesystem (macOS and Windows ignore case).
func bodyKey(p string) string { return strings.ToLower(p) }
