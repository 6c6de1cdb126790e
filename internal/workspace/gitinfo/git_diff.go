package gitinfo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/workspace"
)

// DiffOptions are git_diff's inputs. Originals maps workspace-relative
// paths to their first-seen content (nil: the file did not exist) for the
// fallback diff outside a repository.
type DiffOptions struct {
	Paths                  []string
	Staged, Unstaged       bool
	ContextLines, MaxBytes int
	Originals              map[string]*string
}

const (
	diffMaxLines      = 2000 // fixed per-call line cap of the diff text
	diffDefaultBytes  = 262144
	diffUTF8Margin    = utf8.UTFMax // bytes read past max_bytes to cut on a rune boundary
	warnDiffTruncated = "diff truncated"
	warnFallback      = "non-git diff fallback"
)

// diffMaxFiles is the most files[] entries reported (a variable for
// tests).
var diffMaxFiles = 10000

// DiffFile is one files[] entry of git_diff.
type DiffFile struct {
	Path    string `json:"path" jsonschema:"Workspace-relative path (the destination of a rename)"`
	OldPath string `json:"old_path,omitempty" jsonschema:"The source of a rename"`
	Status  string `json:"status" jsonschema:"added, deleted, modified or renamed"`
	Binary  bool   `json:"binary"`
}

// DiffResult is git_diff's result (docs/coding-tools.md#git_diff).
type DiffResult struct {
	Diff      string     `json:"diff" jsonschema:"Unified diff, unstaged part first, then staged"`
	Files     []DiffFile `json:"files" jsonschema:"Every changed file, even when the diff text is cut"`
	Truncated bool       `json:"truncated"`
	// TruncatedBy is lines or bytes, or null.
	TruncatedBy *string  `json:"truncated_by" jsonschema:"The limit that cut the diff: lines or bytes; null when not cut"`
	OutputLines int      `json:"output_lines"`
	OutputBytes int      `json:"output_bytes"`
	Warnings    []string `json:"warnings"`
}

// diffText accumulates the diff text of every part, reading no more than
// the limits need.
type diffText struct {
	buf      []byte
	lines    int
	maxBytes int
	cut      bool // output was left unread
}

// full reports whether enough text is held to decide the truncation.
func (d *diffText) full() bool {
	return len(d.buf) > d.maxBytes+diffUTF8Margin || d.lines > diffMaxLines
}

// readFrom appends r's content until the limits are met; errGitEnough
// when it stopped before the end.
func (d *diffText) readFrom(r io.Reader) error {
	chunk := make([]byte, 32<<10)
	for {
		if d.full() {
			d.cut = true
			return errGitEnough
		}
		n, err := r.Read(chunk)
		if n > 0 {
			d.buf = append(d.buf, chunk[:n]...)
			for _, c := range chunk[:n] {
				if c == '\n' {
					d.lines++
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// append adds generated text (the fallback's), bounded like readFrom.
func (d *diffText) append(s string) {
	if d.full() {
		d.cut = true
		return
	}
	d.buf = append(d.buf, s...)
	d.lines += strings.Count(s, "\n")
}

// Diff diffs the workspace (git_diff, docs/coding-tools.md#git_diff): in a work
// tree the unstaged then the staged unified diff, filtered by o.Paths; outside
// one, the server's own changes (o.Originals) against the current files.
func Diff(ctx context.Context, r *workspace.Root, o DiffOptions) (*DiffResult, error) {
	var specs []string
	seen := map[string]bool{}
	for _, p := range o.Paths {
		t, err := r.WriteTarget(p)
		if err != nil {
			return nil, err
		}
		if !seen[t.Rel] {
			seen[t.Rel] = true
			specs = append(specs, t.Rel)
		}
	}
	if o.ContextLines < 0 {
		o.ContextLines = 3
	}
	if o.MaxBytes < 1 {
		o.MaxBytes = diffDefaultBytes
	}
	text := &diffText{maxBytes: o.MaxBytes}
	var files []DiffFile
	var warnings []string
	if !o.Staged && !o.Unstaged {
		return diffResult(text, files, false, warnings), nil
	}
	repo, err := gitOpen(ctx, r)
	if err != nil {
		return nil, err
	}
	if repo == nil {
		files, warnings = fallbackDiff(r, o, specs, text)
		return diffResult(text, files, false, append([]string{warnFallback}, warnings...)), nil
	}
	var parts [][]DiffFile
	filesCut := false
	for _, staged := range []bool{false, true} {
		if staged && !o.Staged || !staged && !o.Unstaged {
			continue
		}
		fs, more, err := repo.diffPart(ctx, staged, o.ContextLines, specs, text)
		if err != nil {
			return nil, err
		}
		filesCut = filesCut || more
		parts = append(parts, fs)
	}
	files = mergeDiffFiles(parts)
	if len(files) > diffMaxFiles {
		files, filesCut = files[:diffMaxFiles], true
	}
	if filesCut {
		warnings = append(warnings, fmt.Sprintf("file list truncated to %d files", diffMaxFiles))
	}
	return diffResult(text, files, filesCut, warnings), nil
}

// diffPart diffs one side (the index against the work tree, or with
// staged HEAD against the index) in two processes: the files (raw and
// numstat records, read in full) and the patch (read only as far as the
// limits need). One process cannot do both: for unmerged paths git
// switches to a combined diff, which prints the raw records and drops the
// patch. It returns the files and whether more than diffMaxFiles existed.
func (g *gitRepo) diffPart(ctx context.Context, staged bool, contextLines int, specs []string, text *diffText) ([]DiffFile, bool, error) {
	common := []string{"--no-ext-diff", "--no-textconv", "--no-color", "--find-renames", "--submodule=short", "--ignore-submodules=dirty"}
	if g.prefix != "" {
		common = append(common, "--relative")
	}
	if staged {
		common = append(common, "--cached")
	}
	tail := append([]string{"--"}, specs...)

	var l diffList
	consume := func(r *bufio.Reader) error {
		return records(r, func(rec string) error { return l.record(r, rec) })
	}
	args := append(append([]string{"diff", "--raw", "--numstat", "-z"}, common...), tail...)
	if err := runGit(ctx, g.opts, consume, args...); err != nil {
		return nil, false, gitFailure(err)
	}
	raws, more := l.files()
	if len(raws) == 0 {
		return raws, more, nil // no patch either
	}
	if text.full() {
		text.cut = true
		return raws, more, nil
	}
	args = append(append([]string{"diff", "--patch", "--unified=" + strconv.Itoa(contextLines),
		"--src-prefix=a/", "--dst-prefix=b/"}, common...), tail...)
	if err := runGit(ctx, g.opts, func(r *bufio.Reader) error { return text.readFrom(r) }, args...); err != nil {
		return nil, false, gitFailure(err)
	}
	return raws, more, nil
}

// diffList collects the records of `git diff --raw --numstat -z`: a raw
// record per file, then a numstat record per file in the same order.
type diffList struct {
	raws, nums []DiffFile
	more       bool // more than diffMaxFiles files
}

// record reads one record (and the paths that follow it).
func (l *diffList) record(r *bufio.Reader, rec string) error {
	switch {
	case rec == "":
		return nil
	case rec[0] == ':':
		// ":mode mode sha sha STATUS" then the path (two for a rename or
		// copy); "::…" is a combined (unmerged) record.
		f := strings.Fields(rec)
		code := f[len(f)-1]
		d := DiffFile{Status: diffStatus(code[0])}
		if strings.HasPrefix(rec, "::") {
			d.Status = "modified"
		}
		src, err := readZ(r)
		if err != nil {
			return fmt.Errorf("git diff: raw record without a path")
		}
		d.Path = src
		if !strings.HasPrefix(rec, "::") && (code[0] == 'R' || code[0] == 'C') {
			dst, err := readZ(r)
			if err != nil {
				return fmt.Errorf("git diff: rename record without its destination")
			}
			d.Path, d.OldPath = dst, src
			if code[0] == 'C' {
				d.OldPath = "" // a copy adds a file
			}
		}
		if len(l.raws) < diffMaxFiles {
			l.raws = append(l.raws, d)
		} else {
			l.more = true
		}
	default: // numstat: added TAB deleted TAB path (empty for a rename: src NUL dst follow)
		f := strings.SplitN(rec, "\t", 3)
		if len(f) < 3 {
			return fmt.Errorf("unexpected git diff numstat record %q", rec)
		}
		d := DiffFile{Path: f[2], Binary: f[0] == "-" && f[1] == "-"}
		if f[2] == "" {
			if _, err := readZ(r); err != nil {
				return fmt.Errorf("git diff: numstat rename without paths")
			}
			dst, err := readZ(r)
			if err != nil {
				return fmt.Errorf("git diff: numstat rename without its destination")
			}
			d.Path = dst
		}
		if len(l.nums) < diffMaxFiles {
			l.nums = append(l.nums, d)
		}
	}
	return nil
}

// files are the raw records with the binary flag of their numstat
// records, and whether there were more.
func (l *diffList) files() ([]DiffFile, bool) {
	for i := range l.raws {
		if i < len(l.nums) && l.nums[i].Path == l.raws[i].Path {
			l.raws[i].Binary = l.nums[i].Binary
		}
	}
	return l.raws, l.more
}

func diffStatus(c byte) string {
	switch c {
	case 'A', 'C':
		return "added"
	case 'D':
		return "deleted"
	case 'R':
		return "renamed"
	default: // M, T (type change), U (unmerged), X
		return "modified"
	}
}

// mergeDiffFiles lists each file once, in the order of the text (unstaged
// part first). A file in both parts takes the staged status (HEAD against
// the index) unless the work tree deleted it since.
func mergeDiffFiles(parts [][]DiffFile) []DiffFile {
	var out []DiffFile
	at := map[string]int{}
	for pi, part := range parts {
		for _, f := range part {
			i, ok := at[f.Path]
			if !ok {
				at[f.Path] = len(out)
				out = append(out, f)
				continue
			}
			prev := out[i]
			merged := f
			if pi > 0 { // f is the staged side, prev the unstaged one
				if prev.Status == "deleted" {
					merged = DiffFile{Path: f.Path, Status: "deleted"}
				}
			}
			merged.Binary = prev.Binary || f.Binary
			out[i] = merged
		}
	}
	return out
}

// diffResult cuts the text (head, on line boundaries, to max_bytes and
// 2000 lines) and builds the result; filesCut: files[] was capped.
func diffResult(text *diffText, files []DiffFile, filesCut bool, warnings []string) *DiffResult {
	raw := text.buf
	if text.cut {
		// The read stopped anywhere: drop an incomplete trailing rune.
		raw = trimPartialRune(raw)
	}
	s := strings.ToValidUTF8(string(raw), "\uFFFD")
	out, by, lines, firstCut := headCut(s, text.maxBytes, diffMaxLines)
	if warnings == nil {
		warnings = []string{}
	}
	var tb *string
	if by != "" {
		tb = &by
		warnings = append(warnings, warnDiffTruncated)
		if firstCut {
			warnings = append(warnings, fmt.Sprintf("the first diff line exceeds max_bytes (%d): it is cut", text.maxBytes))
		}
	}
	if files == nil {
		files = []DiffFile{}
	}
	return &DiffResult{Diff: out, Files: files, Truncated: by != "" || filesCut, TruncatedBy: tb,
		OutputLines: lines, OutputBytes: len(out), Warnings: warnings}
}

func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return b // ASCII: nothing pending
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// headCut keeps whole lines from the start while their count stays within
// maxLines and their bytes within maxBytes. by names the limit that
// stopped it ("" when all fits); a first line longer than maxBytes is cut
// to its longest UTF-8-safe prefix (firstCut).
func headCut(s string, maxBytes, maxLines int) (out, by string, lines int, firstCut bool) {
	pos := 0
	for pos < len(s) {
		end := len(s)
		if i := strings.IndexByte(s[pos:], '\n'); i >= 0 {
			end = pos + i + 1
		}
		if lines == maxLines {
			by = "lines"
			break
		}
		if end > maxBytes {
			by = "bytes"
			break
		}
		pos = end
		lines++
	}
	if by == "bytes" && lines == 0 {
		cut := maxBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut > 0 {
			return s[:cut], by, 1, true
		}
		return "", by, 0, true
	}
	return s[:pos], by, lines, false
}
