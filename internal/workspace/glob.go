package workspace

import (
	"path"
	"strings"

	// doublestar gives the "**" the profile's globs need (zero or more
	// whole directories) with "*", "?" and "[...]" never crossing "/";
	// path.Match has no "**" and filepath.Glob walks the real filesystem
	// (outside os.Root) instead of matching a path we already have.
	"github.com/bmatcuk/doublestar/v4"
)

// Glob semantics of list_files and search_text
// (docs/coding-tools.md#list_files): a pattern is matched against the
// workspace-relative path;
//   - "*", "?" and "[...]" do not cross "/"; "**" spans zero or more
//     directories (so "**/*.js" matches "a.js"); "{a,b}" alternates and
//     "\" escapes (doublestar's syntax);
//   - a pattern without "/" matches the base name at any depth;
//   - a pattern with "/" that does not start with "**" is taken as
//     "**/<pattern>", so it may start at any directory;
//   - a leading "./" is dropped; a leading "/" anchors the pattern at the
//     workspace root instead; a trailing "/" means the directory and
//     everything below it ("build/" is "build/**").

// globPattern is one normalised pattern.
type globPattern struct {
	pattern  string
	baseName bool // match the last path component only
}

// GlobSet matches a path if any of its patterns does; an empty set matches
// nothing.
type GlobSet []globPattern

// CompileGlobs validates and normalises patterns; an invalid one is
// INVALID_ARGUMENT naming the argument. Empty strings are skipped.
func CompileGlobs(arg string, patterns []string) (GlobSet, error) {
	var set GlobSet
	for _, p := range patterns {
		g, ok := normaliseGlob(p)
		if !ok {
			continue
		}
		if !doublestar.ValidatePattern(g.pattern) {
			return nil, Errorf(CodeInvalidArgument, map[string]any{"argument": arg, "pattern": p}, "invalid glob pattern in %s: %q", arg, p)
		}
		set = append(set, g)
	}
	return set, nil
}

func normaliseGlob(p string) (globPattern, bool) {
	for strings.HasPrefix(p, "./") {
		p = strings.TrimLeft(p[2:], "/")
	}
	anchored := false
	if strings.HasPrefix(p, "/") {
		anchored = true
		p = strings.TrimLeft(p, "/")
	}
	if strings.HasSuffix(p, "/") {
		p = strings.TrimRight(p, "/") + "/**"
	}
	if p == "" || p == "/**" {
		return globPattern{}, false
	}
	switch {
	case anchored:
		return globPattern{pattern: p}, true
	case !strings.Contains(p, "/"):
		return globPattern{pattern: p, baseName: true}, true
	case strings.HasPrefix(p, "**"):
		return globPattern{pattern: p}, true
	default:
		return globPattern{pattern: "**/" + p}, true
	}
}

// match reports whether the workspace-relative path rel matches any
// pattern.
func (s GlobSet) Match(rel string) bool {
	if len(s) == 0 {
		return false
	}
	base := path.Base(rel)
	for _, g := range s {
		name := rel
		if g.baseName {
			name = base
		}
		if ok, _ := doublestar.Match(g.pattern, name); ok {
			return true
		}
	}
	return false
}
