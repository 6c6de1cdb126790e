// Package anchor creates feedback anchors on a spec's markdown body and
// finds them again after the body changes. Everything here is a pure
// function of its arguments: no I/O, no clock (the caller passes now).
//
// Reading the body:
//   - Lines end at "\n"; a "\r" just before it is part of the line end, so
//     CRLF bodies read like LF ones. A final line end does not start another
//     line: "a\nb\n" has 2 lines, "" has none, "\n" has one blank line.
//   - Headings are ATX headings, as CommonMark reads them: up to 3 spaces of
//     indentation, 1 to 6 '#', then a space, a tab or the end of the line.
//     The heading text is what follows, trimmed, without an optional closing
//     run of '#' ("## Auth ##" is "Auth"; "# C#" stays "C#"). Setext
//     headings (underlined with === or ---) are not sections.
//   - Lines inside fenced code blocks are never headings. A fence opens with
//     up to 3 spaces and at least 3 '`' or '~' (a backtick fence's info
//     string may not hold a '`'); it closes at a line of at least as many of
//     the same character followed only by whitespace, or at the end of the
//     body when never closed. Lines inside a fence can still be anchored:
//     their section is the heading above the fence.
//   - A line's section is the nearest heading at or above it; a heading line
//     is its own section, at offset 0.
package anchor

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/tracker"
)

// maxChars is the most characters (runes) kept in a snippet or a context.
const maxChars = 50

// New anchors line (1-based) of body. The snippet is the start of the line.
// Errors (plain, for the caller to wrap): "line N is past the end of the
// spec (M lines)" ("(1 line)" for a one-line body), and, for line < 1,
// "line N is not a line of the spec: lines count from 1" — a past-the-end
// message would be wrong there. A blank (or whitespace-only) line is
// refused, naming the nearest lines with text: its empty snippet never
// matches by itself, so the anchor would go stale at the first edit of the
// spec. Every way of anchoring (add and relocate, CLI and MCP) comes here.
func New(body string, line int, now time.Time) (tracker.Anchor, error) {
	d := parse(body)
	if err := d.checkLine(line); err != nil {
		return tracker.Anchor{}, err
	}
	if err := d.checkText(line); err != nil {
		return tracker.Anchor{}, err
	}
	return d.newAnchor(line-1, snippetOf(d.lines[line-1]), now), nil
}

// FindText returns the 1-based line of the first occurrence of text in body.
// Surrounding whitespace of text is trimmed first; empty text, and text
// spanning lines, are errors.
func FindText(body, text string) (int, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return 0, fmt.Errorf("text to anchor is empty")
	}
	if strings.Contains(t, "\n") {
		// Decision: a distinct message rather than "not in the spec", which
		// would be wrong for text that is there but across lines.
		return 0, fmt.Errorf("text %q spans several lines: anchor text must be on one line", t)
	}
	for i, l := range splitLines(body) {
		if strings.Contains(l, t) {
			return i + 1, nil
		}
	}
	return 0, fmt.Errorf("text %q is not in the spec", t)
}

// NewAtText is FindText then New, but the snippet is the matched text (cut
// to 50 chars) rather than the start of the line.
func NewAtText(body, text string, now time.Time) (tracker.Anchor, error) {
	n, err := FindText(body, text)
	if err != nil {
		return tracker.Anchor{}, err
	}
	d := parse(body)
	return d.newAnchor(n-1, cutStart(strings.TrimSpace(text)), now), nil
}

// Line returns the text of line n (1-based) of body, without its line end,
// and the heading of its section (nil when none); ok is false when there is
// no line n.
func Line(body string, n int) (text string, heading *string, ok bool) {
	d := parse(body)
	if n < 1 || n > len(d.lines) {
		return "", nil, false
	}
	if h := d.sectionOf(n - 1); h >= 0 {
		s := d.headings[h].text
		heading = &s
	}
	return d.lines[n-1], heading, true
}

// Relocate finds a's place in body after the body changed and returns the
// updated anchor. The steps, first hit wins:
//
//  1. In place: the line at LineNumber still holds the snippet and the
//     snippet still hashes to ContentHash → valid. LineNumber stays; the
//     section fields, LineOffset and contexts are refreshed.
//  2. Same heading: a heading with exactly the old heading text (any level)
//     whose line + LineOffset holds the snippet, that line still being in
//     that heading's section → relocated. With several such headings, the
//     one whose line is nearest the old LineNumber (the earlier on a tie).
//     Skipped for an anchor with no heading (step 1 already looked there).
//  3. Context: every line holding the snippet is scored 0.5, plus 0.25 per
//     side whose context (computed for that line as New does) equals the
//     stored one. The best score wins if ≥ 0.7 (so at least one side must
//     match); two or more lines at the best score are a tie and no match.
//  4. Near heading: headings whose text is within a small edit distance of
//     the old heading text (see nearHeading), holding the snippet somewhere
//     in their section → relocated to the line nearest the old LineOffset
//     (the earlier on a tie). The smallest distance wins; two headings at
//     that distance that both hold the snippet are ambiguous and no match.
//     Skipped for an anchor with no heading. The exact old heading counts
//     (distance 0), which finds a line moved within an unrenamed section
//     whose contexts also changed.
//  5. Stale: the old fields are kept, only AnchorStatus and LastVerifiedAt
//     change.
//
// The hash is checked in step 1 only: a snippet that no longer hashes to
// ContentHash was changed by hand, so its anchor is not taken as valid in
// place, but the snippet is still searched for by steps 2–4 (and would
// come out relocated even at the same line).
//
// An empty or whitespace-only snippet (an anchor on a blank line) never
// matches by itself: it is valid only in place, when that line is still
// blank, the hash matches and both contexts are unchanged there; otherwise
// it is stale.
//
// LastVerifiedAt is always now; OriginalLocation, TextSnippet and
// ContentHash never change.
func Relocate(body string, a tracker.Anchor, now time.Time) tracker.Anchor {
	out, _ := relocate(body, a, now)
	return out
}

// relocate is Relocate, also telling which step decided (1–5), for tests.
func relocate(body string, a tracker.Anchor, now time.Time) (tracker.Anchor, int) {
	d := parse(body)
	out := a
	out.LastVerifiedAt = now
	s := a.TextSnippet
	n := len(d.lines)
	inRange := a.LineNumber >= 1 && a.LineNumber <= n
	hashOK := hashOf(s) == a.ContentHash

	if strings.TrimSpace(s) == "" {
		if inRange && hashOK {
			i := a.LineNumber - 1
			if strings.TrimSpace(d.lines[i]) == "" &&
				d.contextBefore(i) == a.ContextBefore && d.contextAfter(i) == a.ContextAfter {
				return d.place(out, i, tracker.AnchorValid), 1
			}
		}
		out.AnchorStatus = tracker.AnchorStale
		return out, 5
	}

	// 1. In place.
	if inRange && hashOK && strings.Contains(d.lines[a.LineNumber-1], s) {
		return d.place(out, a.LineNumber-1, tracker.AnchorValid), 1
	}
	// 2. Same heading text, same offset.
	if a.SectionHeading != nil {
		if i, ok := d.sameHeading(*a.SectionHeading, a.LineOffset, a.LineNumber, s); ok {
			return d.place(out, i, tracker.AnchorRelocated), 2
		}
	}
	// 3. Snippet scored by context.
	if i, ok := d.byContext(s, a.ContextBefore, a.ContextAfter); ok {
		return d.place(out, i, tracker.AnchorRelocated), 3
	}
	// 4. Near heading.
	if a.SectionHeading != nil {
		if i, ok := d.nearHeading(*a.SectionHeading, a.LineOffset, s); ok {
			return d.place(out, i, tracker.AnchorRelocated), 4
		}
	}
	// 5. Stale.
	out.AnchorStatus = tracker.AnchorStale
	return out, 5
}

// heading is an ATX heading of the body.
type heading struct {
	line  int // 0-based
	level int
	text  string
}

// doc is a parsed body.
type doc struct {
	lines    []string
	headings []heading
	section  []int // per line: index in headings of its section, -1 for none
}

func parse(body string) doc {
	d := doc{lines: splitLines(body)}
	d.section = make([]int, len(d.lines))
	cur := -1
	var fenceChar byte
	fenceLen := 0 // 0: not in a fence
	for i, l := range d.lines {
		switch {
		case fenceLen > 0:
			if closesFence(l, fenceChar, fenceLen) {
				fenceLen = 0
			}
		default:
			if c, n, ok := opensFence(l); ok {
				fenceChar, fenceLen = c, n
			} else if lv, text, ok := parseHeading(l); ok {
				d.headings = append(d.headings, heading{line: i, level: lv, text: text})
				cur = len(d.headings) - 1
			}
		}
		d.section[i] = cur
	}
	return d
}

// splitLines cuts body into lines, without their line ends.
func splitLines(body string) []string {
	if body == "" {
		return nil
	}
	parts := strings.Split(body, "\n")
	last := len(parts) - 1
	if parts[last] == "" {
		parts = parts[:last]
	} else {
		last++ // the final piece has no line end: keep any "\r" it has
	}
	for i := 0; i < len(parts) && i < last; i++ {
		parts[i] = strings.TrimSuffix(parts[i], "\r")
	}
	return parts
}

// indent strips up to 3 leading spaces; ok is false for 4 or more (an
// indented code block, never a heading or a fence).
func indent(l string) (string, bool) {
	for k := 0; k < 4; k++ {
		if k == len(l) || l[k] != ' ' {
			return l[k:], true
		}
	}
	return l, false
}

func parseHeading(l string) (level int, text string, ok bool) {
	l, ok = indent(l)
	if !ok {
		return 0, "", false
	}
	for level < len(l) && l[level] == '#' {
		level++
	}
	if level == 0 || level > 6 {
		return 0, "", false
	}
	rest := l[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false
	}
	text = strings.TrimSpace(rest)
	// An optional closing run of '#', when it is the whole text or follows
	// a space or tab.
	t := strings.TrimRight(text, "#")
	if t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
		text = strings.TrimSpace(t)
	}
	return level, text, true
}

func opensFence(l string) (c byte, n int, ok bool) {
	l, ok = indent(l)
	if !ok || l == "" || (l[0] != '`' && l[0] != '~') {
		return 0, 0, false
	}
	c = l[0]
	for n < len(l) && l[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.IndexByte(l[n:], '`') >= 0) {
		return 0, 0, false
	}
	return c, n, true
}

func closesFence(l string, c byte, want int) bool {
	l, ok := indent(l)
	if !ok {
		return false
	}
	n := 0
	for n < len(l) && l[n] == c {
		n++
	}
	return n >= want && strings.TrimSpace(l[n:]) == ""
}

func (d doc) checkLine(line int) error {
	n := len(d.lines)
	if line < 1 {
		return fmt.Errorf("line %d is not a line of the spec: lines count from 1", line)
	}
	if line > n {
		unit := "lines"
		if n == 1 {
			unit = "line"
		}
		return fmt.Errorf("line %d is past the end of the spec (%d %s)", line, n, unit)
	}
	return nil
}

// checkText refuses a blank line (1-based), naming the nearest lines with
// text above and below it.
func (d doc) checkText(line int) error {
	if strings.TrimSpace(d.lines[line-1]) != "" {
		return nil
	}
	var near []string
	for _, step := range []int{-1, 1} {
		for i := line - 1 + step; i >= 0 && i < len(d.lines); i += step {
			if strings.TrimSpace(d.lines[i]) != "" {
				near = append(near, fmt.Sprintf("line %d", i+1))
				break
			}
		}
	}
	where := "the spec has no line with text"
	switch len(near) {
	case 1:
		where = "the nearest is " + near[0]
	case 2:
		where = "the nearest are " + near[0] + " and " + near[1]
	}
	return fmt.Errorf("line %d is blank: anchor feedback on a line with text (%s)", line, where)
}

// sectionOf returns the index in d.headings of line i's section, -1 for none.
func (d doc) sectionOf(i int) int { return d.section[i] }

// sectionEnd returns the 0-based line after heading h's section.
func (d doc) sectionEnd(h int) int {
	if h+1 < len(d.headings) {
		return d.headings[h+1].line
	}
	return len(d.lines)
}

func (d doc) newAnchor(i int, snippet string, now time.Time) tracker.Anchor {
	a := tracker.Anchor{
		TextSnippet:    snippet,
		ContentHash:    hashOf(snippet),
		LastVerifiedAt: now,
	}
	a = d.place(a, i, tracker.AnchorValid)
	a.OriginalLocation = tracker.Location{LineNumber: i + 1}
	if a.SectionHeading != nil {
		h := *a.SectionHeading
		a.OriginalLocation.SectionHeading = &h
	}
	return a
}

// place sets a's position fields for line i (0-based) and its status.
func (d doc) place(a tracker.Anchor, i int, st tracker.AnchorStatus) tracker.Anchor {
	a.LineNumber = i + 1
	a.LineOffset = i + 1
	a.SectionHeading, a.SectionLevel = nil, nil
	if h := d.sectionOf(i); h >= 0 {
		hd := d.headings[h]
		text, level := hd.text, hd.level
		a.SectionHeading, a.SectionLevel = &text, &level
		a.LineOffset = i - hd.line
	}
	a.ContextBefore = d.contextBefore(i)
	a.ContextAfter = d.contextAfter(i)
	a.AnchorStatus = st
	return a
}

// contextBefore is the last ≤ 50 chars of the nearest non-blank line above
// line i, trimmed; "" when none.
func (d doc) contextBefore(i int) string {
	for j := i - 1; j >= 0; j-- {
		if t := strings.TrimSpace(d.lines[j]); t != "" {
			return cutEnd(t)
		}
	}
	return ""
}

// contextAfter is the first ≤ 50 chars of the nearest non-blank line below
// line i, trimmed; "" when none.
func (d doc) contextAfter(i int) string {
	for j := i + 1; j < len(d.lines); j++ {
		if t := strings.TrimSpace(d.lines[j]); t != "" {
			return cutStart(t)
		}
	}
	return ""
}

func (d doc) sameHeading(text string, offset, oldLine int, s string) (int, bool) {
	best, found := 0, false
	n := len(d.lines)
	for h, hd := range d.headings {
		if hd.text != text {
			continue
		}
		// i = hd.line + offset, guarded against overflow of a stored offset.
		if offset < -hd.line || offset >= n-hd.line {
			continue
		}
		i := hd.line + offset
		if d.sectionOf(i) != h || !strings.Contains(d.lines[i], s) {
			continue
		}
		if !found || absDiff(i+1, oldLine) < absDiff(best+1, oldLine) {
			best, found = i, true
		}
	}
	return best, found
}

func (d doc) byContext(s, before, after string) (int, bool) {
	// Scores in quarters: 2 = 0.5, 3 = 0.75, 4 = 1.0; ≥ 0.7 means ≥ 3.
	best, bestScore, ties := -1, 0, 0
	for i, l := range d.lines {
		if !strings.Contains(l, s) {
			continue
		}
		score := 2
		if d.contextBefore(i) == before {
			score++
		}
		if d.contextAfter(i) == after {
			score++
		}
		switch {
		case score > bestScore:
			best, bestScore, ties = i, score, 1
		case score == bestScore:
			ties++
		}
	}
	if bestScore < 3 || ties > 1 {
		return 0, false
	}
	return best, true
}

// nearHeading is step 4. A heading is near the old one when their texts,
// compared case-insensitively, are at most maxEdits(longer length) edits
// apart (Levenshtein on runes): at most 2 edits and at most 20% of the
// longer text, but always at least 1. So "Auth flow" → "Auth flows" (1 of
// 10) is near, "API" → "APIs" is near, "Auth" → "Authz" is near (the
// floor of 1), while "Login" → "Logout" (3 edits) is not. The snippet must
// also still be in that section, which guards the short headings.
func (d doc) nearHeading(text string, offset int, s string) (int, bool) {
	old := []rune(strings.ToLower(text))
	bestDist, bestLine, count := -1, 0, 0
	for h, hd := range d.headings {
		cur := []rune(strings.ToLower(hd.text))
		limit := maxEdits(max(len(old), len(cur)))
		dist, ok := levenshtein(old, cur, limit)
		if !ok || (bestDist >= 0 && dist > bestDist) {
			continue
		}
		line, found := -1, false
		for i := hd.line; i < d.sectionEnd(h); i++ {
			if !strings.Contains(d.lines[i], s) {
				continue
			}
			if !found || absDiff(i-hd.line, offset) < absDiff(line-hd.line, offset) {
				line, found = i, true
			}
		}
		if !found {
			continue
		}
		if dist == bestDist {
			count++
			continue
		}
		bestDist, bestLine, count = dist, line, 1
	}
	if bestDist < 0 || count > 1 {
		return 0, false
	}
	return bestLine, true
}

func maxEdits(longer int) int {
	return max(1, min(2, longer/5))
}

// levenshtein returns the edit distance of a and b when it is at most
// limit; ok is false when it is more.
func levenshtein(a, b []rune, limit int) (int, bool) {
	if absDiff(len(a), len(b)) > uint(limit) {
		return 0, false
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return 0, false
		}
		prev, cur = cur, prev
	}
	dist := prev[len(b)]
	return dist, dist <= limit
}

// absDiff is |a-b| without overflow, whatever the ints.
func absDiff(a, b int) uint {
	if a >= b {
		return uint(a) - uint(b)
	}
	return uint(b) - uint(a)
}

// snippetOf is the snippet of a whole line: its start, ≤ 50 chars, trimmed.
func snippetOf(line string) string {
	return cutStart(strings.TrimSpace(line))
}

// cutStart keeps the first ≤ 50 runes of s, never splitting one (invalid
// bytes count as one char each and are kept as they are), then trims.
func cutStart(s string) string {
	i := 0
	for n := 0; n < maxChars && i < len(s); n++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return strings.TrimSpace(s[:i])
}

// cutEnd keeps the last ≤ 50 runes of s, the same way, then trims.
func cutEnd(s string) string {
	i := len(s)
	for n := 0; n < maxChars && i > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return strings.TrimSpace(s[i:])
}

// hashOf is the first 16 hex chars of the SHA-256 of s.
func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:16]
}
