package patch

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/workspace"
)

// The envelope's marker and header lines (docs/coding-tools.md#grammar).
const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addHeader    = "*** Add File:"
	deleteHeader = "*** Delete File:"
	updateHeader = "*** Update File:"
	moveHeader   = "*** Move to:"
	eofMarker    = "*** End of File"
)

type opKind int

const (
	opAdd opKind = iota
	opDelete
	opUpdate
)

// operation is one parsed section of the envelope.
type operation struct {
	kind   opKind
	path   string   // header path, trimmed, not yet validated
	moveTo string   // Update only; "" when the file stays where it is
	hasMov bool     // a Move to line was present
	add    []string // Add only: the content lines
	chunks []*chunk // Update only
	line   int      // line number of the header in the patch
}

type lineKind byte

const (
	ctxLine lineKind = ' '
	delLine lineKind = '-'
	insLine lineKind = '+'
)

type patchLine struct {
	kind lineKind
	text string
}

// chunk is one hunk of an Update: its anchor, its lines in order and
// whether it is tied to the end of the file.
type chunk struct {
	anchor    string
	hasAnchor bool
	lines     []patchLine
	eof       bool
	line      int // line number where the chunk starts
}

// old is what the chunk expects in the file: context and removed lines.
func (c *chunk) old() []string {
	var out []string
	for _, l := range c.lines {
		if l.kind != insLine {
			out = append(out, l.text)
		}
	}
	return out
}

// withoutTrailingEmptyContext returns the chunk without the empty context lines
// that end its old side (the retry of docs/coding-tools.md#matching step 3), or
// nil when there are none or nothing else would be left to match.
func (c *chunk) withoutTrailingEmptyContext() *chunk {
	lines := c.lines
	for {
		j := len(lines) - 1
		for j >= 0 && lines[j].kind == insLine {
			j--
		}
		if j < 0 || lines[j].kind != ctxLine || lines[j].text != "" {
			break
		}
		lines = append(append([]patchLine{}, lines[:j]...), lines[j+1:]...)
	}
	if len(lines) == len(c.lines) {
		return nil
	}
	cp := *c
	cp.lines = lines
	if len(cp.old()) == 0 {
		return nil
	}
	return &cp
}

// unifiedRange is an anchor that is really a unified-diff range.
var unifiedRange = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-\d+(,\d+)? \+\d+(,\d+)? @@`) })

func parseErr(line int, format string, args ...any) error {
	details := map[string]any{}
	if line > 0 {
		details["line"] = line
	}
	return workspace.Errorf(workspace.CodePatchFailed, details, format, args...)
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// headerPath returns the path of an operation header line, if it is one.
func headerPath(line, header string) (string, bool) {
	if !strings.HasPrefix(line, header) {
		return "", false
	}
	return strings.TrimSpace(line[len(header):]), true
}

// parse reads the envelope (phase 1); it touches nothing.
func parse(text string) ([]*operation, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	trimmed := strings.TrimSpace(text)
	// Line numbers refer to the patch as given (after CRLF normalisation).
	first := strings.Count(text[:strings.Index(text, trimmed)], "\n") + 1
	if trimmed == "" {
		return nil, parseErr(0, "invalid patch envelope: the patch is empty; it must start with '%s' and end with '%s'", beginMarker, endMarker)
	}
	lines := strings.Split(trimmed, "\n")
	if strings.TrimSpace(lines[0]) != beginMarker {
		return nil, parseErr(first, "invalid patch envelope: the first line must be '%s'", beginMarker)
	}
	if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != endMarker {
		return nil, parseErr(first+len(lines)-1, "invalid patch envelope: the last line must be '%s'", endMarker)
	}
	p := &parser{lines: lines[1 : len(lines)-1], first: first + 1}
	ops, err := p.run()
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, parseErr(0, "no files were modified: the patch contains no operations")
	}
	return ops, nil
}

type parser struct {
	lines []string
	first int // line number of lines[0]
	i     int
}

func (p *parser) lineNo() int { return p.first + p.i }

func (p *parser) unexpected(what string) error {
	l := p.lines[p.i]
	if len(l) > 80 {
		cut := 80
		for cut > 0 && !utf8.RuneStart(l[cut]) {
			cut--
		}
		l = l[:cut] + "…"
	}
	return parseErr(p.lineNo(), "unexpected line %d%s: %q", p.lineNo(), what, l)
}

func (p *parser) run() ([]*operation, error) {
	var ops []*operation
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		if isBlank(line) {
			p.i++
			continue
		}
		var (
			op  *operation
			err error
		)
		if path, ok := headerPath(line, addHeader); ok {
			op, err = p.parseAdd(path)
		} else if path, ok := headerPath(line, deleteHeader); ok {
			op, err = p.parseDelete(path)
		} else if path, ok := headerPath(line, updateHeader); ok {
			op, err = p.parseUpdate(path)
		} else if _, ok := headerPath(line, moveHeader); ok {
			return nil, p.unexpected(" ('*** Move to:' must directly follow an '*** Update File:' header)")
		} else if strings.TrimSpace(line) == endMarker {
			return nil, p.unexpected(" (content after '*** End Patch')")
		} else {
			return nil, p.unexpected(" (expected an '*** Add File:', '*** Delete File:' or '*** Update File:' header)")
		}
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// sectionEnd reports whether the current line ends an operation section.
func (p *parser) sectionEnd() bool {
	return strings.HasPrefix(p.lines[p.i], "*** ")
}

func (p *parser) parseAdd(path string) (*operation, error) {
	op := &operation{kind: opAdd, path: path, line: p.lineNo(), add: []string{}}
	p.i++
	blankFrom := -1 // first of a run of blank lines, which must be trailing
	for ; p.i < len(p.lines) && !p.sectionEnd(); p.i++ {
		line := p.lines[p.i]
		switch {
		case isBlank(line):
			if blankFrom < 0 {
				blankFrom = p.i
			}
		case strings.HasPrefix(line, "+"):
			if blankFrom >= 0 {
				p.i = blankFrom
				return nil, p.unexpected(" in Add File (every content line must start with '+'; write '+' for an empty line)")
			}
			op.add = append(op.add, line[1:])
		default:
			return nil, p.unexpected(" in Add File (every content line must start with '+')")
		}
	}
	return op, nil
}

func (p *parser) parseDelete(path string) (*operation, error) {
	op := &operation{kind: opDelete, path: path, line: p.lineNo()}
	p.i++
	for ; p.i < len(p.lines) && !p.sectionEnd(); p.i++ {
		if !isBlank(p.lines[p.i]) {
			return nil, p.unexpected(" after '*** Delete File:' (a delete has no body)")
		}
	}
	return op, nil
}

func (p *parser) parseUpdate(path string) (*operation, error) {
	op := &operation{kind: opUpdate, path: path, line: p.lineNo()}
	p.i++
	if p.i < len(p.lines) {
		if dest, ok := headerPath(p.lines[p.i], moveHeader); ok {
			op.moveTo, op.hasMov = dest, true
			p.i++
		}
	}
	var (
		cur     *chunk // the open chunk; nil before the first or after End of File
		pending []int  // blank lines not yet known to be context
	)
	flush := func() { // pending blank lines become empty context lines
		for range pending {
			cur.lines = append(cur.lines, patchLine{ctxLine, ""})
		}
		pending = nil
	}
	closeChunk := func() error {
		pending = nil // blank lines ending a chunk separate it from what follows
		if cur != nil && len(cur.lines) == 0 {
			return parseErr(cur.line, "empty chunk at line %d in the update of %s: a chunk needs at least one line", cur.line, path)
		}
		cur = nil
		return nil
	}
	for ; p.i < len(p.lines); p.i++ {
		line := p.lines[p.i]
		switch {
		case line == "":
			if cur != nil || len(op.chunks) == 0 {
				pending = append(pending, p.i)
			}
		case strings.HasPrefix(line, "@@"):
			if err := closeChunk(); err != nil {
				return nil, err
			}
			cur = &chunk{line: p.lineNo()}
			anchor := strings.TrimPrefix(line[2:], " ")
			if strings.TrimSpace(anchor) != "" && !unifiedRange().MatchString(anchor) {
				cur.anchor, cur.hasAnchor = anchor, true
			}
			op.chunks = append(op.chunks, cur)
		case strings.TrimSpace(line) == eofMarker:
			if cur == nil || (len(cur.lines) == 0 && len(pending) == 0) {
				return nil, p.unexpected(" ('*** End of File' must follow the lines of a chunk)")
			}
			flush()
			cur.eof = true
			if err := closeChunk(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(line, "*** "):
			if _, ok := headerPath(line, moveHeader); ok {
				return nil, p.unexpected(" ('*** Move to:' must directly follow the '*** Update File:' header)")
			}
			if err := closeChunk(); err != nil {
				return nil, err
			}
			return p.finishUpdate(op)
		case line[0] == ' ' || line[0] == '-' || line[0] == '+':
			if cur == nil {
				if len(op.chunks) > 0 {
					return nil, p.unexpected(" (a chunk after the first must start with '@@')")
				}
				first := p.lineNo()
				if len(pending) > 0 {
					first = p.first + pending[0]
				}
				cur = &chunk{line: first}
				op.chunks = append(op.chunks, cur)
			}
			flush()
			cur.lines = append(cur.lines, patchLine{lineKind(line[0]), line[1:]})
		default:
			return nil, p.unexpected(" in Update File (chunk lines start with ' ', '-' or '+'; chunks start with '@@')")
		}
	}
	if err := closeChunk(); err != nil {
		return nil, err
	}
	return p.finishUpdate(op)
}

func (p *parser) finishUpdate(op *operation) (*operation, error) {
	if len(op.chunks) == 0 && !op.hasMov {
		return nil, parseErr(op.line, "empty update of %s at line %d: it has neither chunks nor '*** Move to:'", op.path, op.line)
	}
	return op, nil
}
