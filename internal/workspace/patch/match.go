package patch

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/sudocode/sudocode/internal/workspace"
)

const bom = "\xEF\xBB\xBF"

// textFile is the file model of docs/coding-tools.md#matching: the lines
// without terminators, plus what it takes to write them back the way the file
// had them.
type textFile struct {
	bom     bool
	crlf    bool
	finalNL bool
	empty   bool // the file had no content at all
	lines   []string
}

func decodeText(b []byte) *textFile {
	s := string(b)
	f := &textFile{}
	if strings.HasPrefix(s, bom) {
		f.bom, s = true, s[len(bom):]
	}
	if i := strings.IndexByte(s, '\n'); i > 0 && s[i-1] == '\r' {
		f.crlf = true
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		f.empty = true
		return f
	}
	f.finalNL = strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	f.lines = strings.Split(s, "\n")
	return f
}

func (f *textFile) encode() []byte {
	var b bytes.Buffer
	if f.bom {
		b.WriteString(bom)
	}
	nl := "\n"
	if f.crlf {
		nl = "\r\n"
	}
	for i, l := range f.lines {
		b.WriteString(l)
		if i < len(f.lines)-1 || f.finalNL || f.empty {
			b.WriteString(nl)
		}
	}
	return b.Bytes()
}

// level is one of the comparison levels of docs/coding-tools.md#matching.
type level struct {
	norm    func(string) string
	warning string
}

var levels = []level{
	{func(s string) string { return s }, ""},
	{func(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }, "matched ignoring trailing whitespace"},
	{strings.TrimSpace, "matched ignoring indentation"},
	{func(s string) string { return strings.TrimSpace(strings.Map(asciiPunct, s)) }, "matched after punctuation normalisation"},
}

// asciiPunct maps typographic characters to their ASCII forms (level 4).
func asciiPunct(r rune) rune {
	switch {
	case r >= 0x2010 && r <= 0x2015, r == 0x2212:
		return '-'
	case r >= 0x2018 && r <= 0x201B:
		return '\''
	case r >= 0x201C && r <= 0x201F:
		return '"'
	case r == 0x00A0, r >= 0x2002 && r <= 0x200A, r == 0x202F, r == 0x205F, r == 0x3000:
		return ' '
	}
	return r
}

// hunk is a located chunk: it replaces lines[start:start+n] of the file.
type hunk struct {
	c     *chunk
	start int
	n     int
	order int // chunk index, for stable ordering
}

// matcher locates and applies the chunks of one Update section.
type matcher struct {
	path     string
	warnings []string
	relaxed  bool
}

func (m *matcher) warn(format string, args ...any) {
	m.warnings = append(m.warnings, fmt.Sprintf(format, args...))
	m.relaxed = true
}

// findAnchor returns the first line at or after from equal to the anchor
// at the first level that has one, or -1.
func (m *matcher) findAnchor(lines []string, anchor string, from int, ci int) int {
	for li, lv := range levels {
		want := lv.norm(anchor)
		for i := from; i < len(lines); i++ {
			if lv.norm(lines[i]) == want {
				if li > 0 {
					m.warn("%s: chunk %d: anchor %q %s", m.path, ci+1, anchor, lv.warning)
				}
				return i
			}
		}
	}
	return -1
}

// candidates lists the positions in [from, len(lines)) where old matches at
// the level; with eof only a match ending at the last line counts.
func candidates(lines, old []string, from int, eof bool, lv level) []int {
	var out []int
	last := len(lines) - len(old)
	first := from
	if eof {
		first = max(from, last)
	}
	want := make([]string, len(old))
	for i, l := range old {
		want[i] = lv.norm(l)
	}
	for i := first; i <= last; i++ {
		ok := true
		for j := range want {
			if lv.norm(lines[i+j]) != want[j] {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// locate finds where one chunk applies. from is the end of the previous
// chunk's match (where its anchor search starts).
func (m *matcher) locate(lines []string, c *chunk, ci, from int) (hunk, error) {
	winStart := 0
	if c.hasAnchor {
		if a := m.findAnchor(lines, c.anchor, from, ci); a >= 0 {
			winStart = a + 1
		} else {
			m.warn("%s: chunk %d: anchor %q not found; matched without it", m.path, ci+1, c.anchor)
		}
	}
	try := func(c *chunk) (hunk, bool, error) {
		old := c.old()
		if len(old) == 0 { // pure insertion: after the anchor, else at the end
			at := len(lines)
			if winStart > 0 && !c.eof {
				at = winStart
			}
			return hunk{c: c, start: at, order: ci}, true, nil
		}
		for li, lv := range levels {
			found := candidates(lines, old, winStart, c.eof, lv)
			switch {
			case len(found) == 0:
				continue
			case len(found) > 1:
				starts := make([]int, len(found))
				for i, s := range found {
					starts[i] = s + 1
				}
				return hunk{}, false, workspace.Errorf(workspace.CodePatchFailed,
					map[string]any{"path": m.path, "chunk": ci + 1, "matches": len(found), "lines": starts},
					"context matched %d locations in %s (chunk %d); add more context lines or an @@ anchor to make it unique",
					len(found), m.path, ci+1)
			}
			if li > 0 {
				m.warn("%s: chunk %d %s", m.path, ci+1, lv.warning)
			}
			return hunk{c: c, start: found[0], n: len(old), order: ci}, true, nil
		}
		return hunk{}, false, nil
	}
	h, ok, err := try(c)
	if err != nil || ok {
		return h, err
	}
	if shorter := c.withoutTrailingEmptyContext(); shorter != nil {
		h, ok, err = try(shorter)
		if ok {
			m.warn("%s: chunk %d matched without its trailing empty context line", m.path, ci+1)
		}
		if err != nil || ok {
			return h, err
		}
	}
	details := map[string]any{"path": m.path, "chunk": ci + 1, "expected": c.old()}
	if c.hasAnchor {
		details["anchor"] = c.anchor
	}
	if c.eof {
		details["end_of_file"] = true
	}
	return hunk{}, workspace.Errorf(workspace.CodePatchFailed, details,
		"context did not match in %s (chunk %d); re-read the file and copy the context lines exactly", m.path, ci+1)
}

// apply locates every chunk in f (the original lines), checks that they do
// not overlap and applies them bottom-up.
func (m *matcher) apply(f *textFile, chunks []*chunk) error {
	var hunks []hunk
	from := 0
	for ci, c := range chunks {
		h, err := m.locate(f.lines, c, ci, from)
		if err != nil {
			return err
		}
		hunks = append(hunks, h)
		from = h.start + h.n
	}
	sort.SliceStable(hunks, func(i, j int) bool {
		a, b := hunks[i], hunks[j]
		if a.start != b.start {
			return a.start < b.start
		}
		return a.n == 0 && b.n > 0 // an insertion goes before a region starting there
	})
	for i := range hunks {
		for j := i + 1; j < len(hunks); j++ {
			if overlap(hunks[i], hunks[j]) {
				a, b := hunks[i], hunks[j]
				if a.order > b.order {
					a, b = b, a
				}
				return workspace.Errorf(workspace.CodePatchFailed,
					map[string]any{"path": m.path, "chunks": []int{a.order + 1, b.order + 1}},
					"hunks overlap in %s: chunks %d and %d touch the same lines; merge them into one chunk",
					m.path, a.order+1, b.order+1)
			}
		}
	}
	lines := f.lines
	for i := len(hunks) - 1; i >= 0; i-- {
		h := hunks[i]
		var repl []string
		k := h.start
		for _, l := range h.c.lines {
			switch l.kind {
			case ctxLine:
				repl = append(repl, lines[k]) // the file's own text
				k++
			case delLine:
				k++
			case insLine:
				repl = append(repl, l.text)
			}
		}
		out := make([]string, 0, len(lines)-h.n+len(repl))
		out = append(out, lines[:h.start]...)
		out = append(out, repl...)
		out = append(out, lines[h.start+h.n:]...)
		lines = out
	}
	f.lines = lines
	return nil
}

// overlap reports whether two located hunks touch the same lines; an
// insertion overlaps a region only when it falls strictly inside it.
func overlap(a, b hunk) bool {
	switch {
	case a.n == 0 && b.n == 0:
		return false
	case a.n == 0:
		return b.start < a.start && a.start < b.start+b.n
	case b.n == 0:
		return a.start < b.start && b.start < a.start+a.n
	}
	return a.start < b.start+b.n && b.start < a.start+a.n
}
