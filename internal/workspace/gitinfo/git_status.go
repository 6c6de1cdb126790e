package gitinfo

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/sudocode/sudocode/internal/workspace"
)

// StatusEntry is one git_status entry.
type StatusEntry struct {
	Path           string `json:"path" jsonschema:"Workspace-relative path"`
	OriginalPath   string `json:"original_path,omitempty" jsonschema:"The source of a rename or copy"`
	IndexStatus    string `json:"index_status" jsonschema:"git's X status code (' ', M, T, A, D, R, C, U, ?)"`
	WorktreeStatus string `json:"worktree_status" jsonschema:"git's Y status code"`
}

// StatusResult is git_status's result (docs/coding-tools.md#git_status).
type StatusResult struct {
	IsRepo    bool          `json:"is_repo" jsonschema:"Whether the workspace is inside a git work tree"`
	Branch    string        `json:"branch" jsonschema:"Current branch, or (detached)"`
	Head      string        `json:"head" jsonschema:"Full HEAD sha; empty before the first commit"`
	Upstream  string        `json:"upstream" jsonschema:"Upstream branch, e.g. origin/main; empty without one"`
	Ahead     int           `json:"ahead"`
	Behind    int           `json:"behind"`
	Clean     bool          `json:"clean" jsonschema:"No entries"`
	Entries   []StatusEntry `json:"entries"`
	Truncated bool          `json:"truncated"`
	Warnings  []string      `json:"warnings"`
}

// Status reports the work tree status of the workspace, scoped to path
// (git_status, docs/coding-tools.md#git_status). Outside a work tree it
// succeeds with is_repo false; the git binary missing is GIT_ERROR.
func Status(ctx context.Context, r *workspace.Root, path string, untracked bool, maxEntries int) (*StatusResult, error) {
	if path == "" {
		path = "."
	}
	scope, err := r.Existing(path)
	if err != nil {
		return nil, err
	}
	if maxEntries < 1 {
		maxEntries = 1000
	}
	out := &StatusResult{Clean: true, Entries: []StatusEntry{}, Warnings: []string{}}
	repo, err := gitOpen(ctx, r)
	if err != nil {
		return nil, err
	}
	if repo == nil {
		out.Warnings = []string{"not inside a git work tree"}
		return out, nil
	}
	out.IsRepo = true

	mode := "--untracked-files=no"
	if untracked {
		mode = "--untracked-files=all"
	}
	st := statusParse{repo: repo, max: maxEntries, entries: []StatusEntry{}}
	err = runGit(ctx, repo.opts, st.consume,
		"status", "--porcelain=v2", "-z", "--branch", mode, "--find-renames", "--ignore-submodules=dirty",
		"--", scope.Rel)
	if err != nil {
		return nil, gitFailure(err)
	}
	out.Branch, out.Head, out.Upstream, out.Ahead, out.Behind = st.branch, st.head, st.upstream, st.ahead, st.behind
	out.Entries, out.Clean, out.Truncated = st.entries, len(st.entries) == 0, st.truncated
	if st.truncated {
		out.Warnings = []string{fmt.Sprintf("status truncated to %d entries", maxEntries)}
	}
	return out, nil
}

// statusParse reads `git status --porcelain=v2 -z --branch`.
type statusParse struct {
	repo                   *gitRepo
	max                    int
	branch, head, upstream string
	ahead, behind          int
	entries                []StatusEntry
	truncated              bool
}

func (s *statusParse) consume(r *bufio.Reader) error {
	return records(r, func(rec string) error { return s.record(r, rec) })
}

// record reads one status record (and the original path after a rename).
func (s *statusParse) record(r *bufio.Reader, rec string) error {
	if strings.HasPrefix(rec, "# ") {
		s.header(rec[2:])
		return nil
	}
	var e StatusEntry
	switch {
	case strings.HasPrefix(rec, "1 "):
		f := strings.SplitN(rec, " ", 9)
		if len(f) < 9 {
			return fmt.Errorf("unexpected git status record %q", rec)
		}
		e = s.entry(f[1], f[8])
	case strings.HasPrefix(rec, "2 "):
		f := strings.SplitN(rec, " ", 10)
		if len(f) < 10 {
			return fmt.Errorf("unexpected git status record %q", rec)
		}
		orig, err := readZ(r)
		if err != nil {
			return fmt.Errorf("git status: rename record without its original path")
		}
		e = s.entry(f[1], f[9])
		e.OriginalPath = s.repo.rel(orig)
	case strings.HasPrefix(rec, "u "):
		f := strings.SplitN(rec, " ", 11)
		if len(f) < 11 {
			return fmt.Errorf("unexpected git status record %q", rec)
		}
		e = s.entry(f[1], f[10])
	case strings.HasPrefix(rec, "? "):
		e = s.entry("??", rec[2:])
	default: // "! " ignored entries (not requested) and anything newer
		return nil
	}
	if len(s.entries) == s.max {
		s.truncated = true
		return errGitEnough
	}
	s.entries = append(s.entries, e)
	return nil
}

func (s *statusParse) entry(xy, path string) StatusEntry {
	code := func(c byte) string {
		if c == '.' {
			return " "
		}
		return string(c)
	}
	if len(xy) < 2 {
		xy += ".."
	}
	return StatusEntry{Path: s.repo.rel(path), IndexStatus: code(xy[0]), WorktreeStatus: code(xy[1])}
}

func (s *statusParse) header(h string) {
	key, val, _ := strings.Cut(h, " ")
	switch key {
	case "branch.oid":
		if val != "(initial)" {
			s.head = val
		}
	case "branch.head":
		s.branch = val
	case "branch.upstream":
		s.upstream = val
	case "branch.ab":
		a, b, _ := strings.Cut(val, " ")
		s.ahead, _ = strconv.Atoi(strings.TrimPrefix(a, "+"))
		s.behind, _ = strconv.Atoi(strings.TrimPrefix(b, "-"))
	}
}
