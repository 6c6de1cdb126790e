package search

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/workspace"
)

// The line matcher of search_text: a literal prefilter that finds
// candidate positions fast (SIMD IndexByte on the literal's rarest byte),
// and, where the prefilter is not itself exact, Go's regexp on each
// candidate line.
//
// Case-insensitive search uses Unicode simple case folding (Go regexp's
// (?i)). The prefilter folds ASCII only, so it is built from "fold-safe"
// runes: those whose whole folding orbit is ASCII ('a'/'A', but not 'k',
// whose orbit holds the Kelvin sign U+212A, nor 's' with U+017F), and
// those that fold to nothing but themselves. Byte-wise ASCII folding of a
// fold-safe literal matches exactly the strings that fold to it, so a
// fold-safe literal query needs no regexp at all; otherwise the longest
// fold-safe run of the query prefilters and the regexp decides.

// lineMatcher finds matching lines.
type lineMatcher struct {
	lit    []byte // every matching line contains lit (ASCII-folded when fold); empty: no prefilter
	fold   bool
	lower  []byte // lit lower-cased (ASCII), when fold
	anchor int    // offset in lit of the byte searched for
	a1, a2 byte   // the anchor byte in both ASCII cases (equal when it has one)
	exact  bool   // a prefilter hit is a match: no regexp
	re     *regexp.Regexp
	never  bool // no line can match (the query needs a "\n")
}

// newLineMatcher compiles a query; an invalid regex is INVALID_ARGUMENT.
func newLineMatcher(query string, regex, caseSensitive bool) (*lineMatcher, error) {
	m := &lineMatcher{}
	if !regex {
		if strings.ContainsRune(query, '\n') {
			m.never = true
			return m, nil
		}
		if caseSensitive {
			m.setLit(query, false)
			m.exact = true
			return m, nil
		}
		if run := longestFoldSafe(query); len(run) == len(query) {
			m.setLit(query, true)
			m.exact = true
			return m, nil
		}
		m.re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(query))
		m.setLit(longestFoldSafe(query), true)
		return m, nil
	}
	pat := query
	if !caseSensitive {
		pat = "(?i)" + query
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		return nil, workspace.Errorf(workspace.CodeInvalidArgument, map[string]any{"query": query, "reason": msg}, "invalid regex: %s", msg)
	}
	m.re = re
	ast, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return m, nil
	}
	best, bestFold, bestScore := "", false, -1
	for _, l := range requiredLiterals(ast) {
		s := string(l.runes)
		if strings.ContainsRune(s, '\n') {
			m.never = true
			return m, nil
		}
		if l.fold {
			s = longestFoldSafe(s)
		}
		if score := literalScore(s, l.fold); score > bestScore {
			best, bestFold, bestScore = s, l.fold, score
		}
	}
	m.setLit(best, bestFold)
	return m, nil
}

// literalScore prefers longer literals, then rarer anchor bytes.
func literalScore(s string, fold bool) int {
	if s == "" {
		return -1
	}
	_, cost := pickAnchor([]byte(s), fold)
	return min(len(s), 16)*1_000_000 - cost
}

func (m *lineMatcher) setLit(s string, fold bool) {
	m.lit = []byte(s)
	m.fold = fold
	if s == "" {
		return
	}
	if fold {
		m.lower = make([]byte, len(s))
		for i := range len(s) {
			m.lower[i] = asciiLower[s[i]]
		}
	}
	m.anchor, _ = pickAnchor(m.lit, fold)
	b := m.lit[m.anchor]
	m.a1, m.a2 = b, b
	if fold {
		m.a1, m.a2 = asciiLower[b], asciiUpper[b]
	}
}

// pickAnchor chooses the byte of lit that is rarest in source text (both
// cases counted when folding) and returns its offset and cost.
func pickAnchor(lit []byte, fold bool) (int, int) {
	best, bestCost := 0, int(^uint(0)>>1)
	for i, b := range lit {
		cost := int(byteFreq[b])
		if fold && asciiLower[b] != asciiUpper[b] {
			cost = int(byteFreq[asciiLower[b]]) + int(byteFreq[asciiUpper[b]])
		}
		if cost < bestCost {
			best, bestCost = i, cost
		}
	}
	return best, bestCost
}

// scanner walks the prefilter hits of one buffer in order.
type scanner struct {
	m      *lineMatcher
	buf    []byte
	n1, n2 int // next occurrence of a1 / a2 at or after the cursor; -2: unknown, -1: none
}

func (m *lineMatcher) scanner(buf []byte) scanner {
	return scanner{m: m, buf: buf, n1: -2, n2: -2}
}

// next returns the start of the first prefilter hit at or after pos, or
// -1. Without a prefilter every position is a candidate.
func (s *scanner) next(pos int) int {
	m := s.m
	if len(m.lit) == 0 {
		if pos < len(s.buf) {
			return pos
		}
		return -1
	}
	k, n := m.anchor, len(m.lit)
	for {
		from := pos + k // the anchor of a hit at >= pos is at >= pos+k
		if from >= len(s.buf) {
			return -1
		}
		var at int
		if m.a1 == m.a2 {
			j := bytes.IndexByte(s.buf[from:], m.a1)
			if j < 0 {
				return -1
			}
			at = from + j
		} else {
			s.n1 = s.refresh(s.n1, from, m.a1)
			s.n2 = s.refresh(s.n2, from, m.a2)
			switch {
			case s.n1 < 0 && s.n2 < 0:
				return -1
			case s.n1 < 0:
				at = s.n2
			case s.n2 < 0:
				at = s.n1
			default:
				at = min(s.n1, s.n2)
			}
		}
		i := at - k
		if i+n <= len(s.buf) && m.equalAt(s.buf[i:i+n]) {
			return i
		}
		pos = i + 1
	}
}

// refresh returns the next occurrence of b at or after from, reusing a
// cached one.
func (s *scanner) refresh(cached, from int, b byte) int {
	if cached == -1 || cached >= from {
		return cached
	}
	j := bytes.IndexByte(s.buf[from:], b)
	if j < 0 {
		return -1
	}
	return from + j
}

func (m *lineMatcher) equalAt(b []byte) bool {
	if !m.fold {
		return string(b) == string(m.lit)
	}
	for i, c := range b {
		if asciiLower[c] != m.lower[i] {
			return false
		}
	}
	return true
}

// matchLine decides whether line (without its terminator), found through
// a prefilter hit at offset hit (or any offset without a prefilter),
// matches, and returns the 0-based byte column of the first match.
func (m *lineMatcher) matchLine(line []byte, hit int) (int, bool) {
	if m.exact {
		if hit+len(m.lit) <= len(line) {
			return hit, true
		}
		// The hit took in the "\r" stripped from the line; the literal
		// cannot occur later in the line either.
		return 0, false
	}
	loc := m.re.FindIndex(line)
	if loc == nil {
		return 0, false
	}
	return loc[0], true
}

// foldSafe reports whether byte-wise ASCII folding matches exactly the
// runes that fold to r.
func foldSafe(r rune) bool {
	if r == utf8.RuneError {
		return false
	}
	allASCII := r < utf8.RuneSelf
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			allASCII = false
		}
		if !allASCII {
			return false
		}
	}
	return true // ASCII with an ASCII orbit, or a rune that folds only to itself
}

// longestFoldSafe is the longest run of fold-safe runes in s.
func longestFoldSafe(s string) string {
	best, start := "", 0
	for i, r := range s {
		if !foldSafe(r) {
			if i-start > len(best) {
				best = s[start:i]
			}
			start = i + utf8.RuneLen(r)
			if r == utf8.RuneError {
				start = i + 1
			}
		}
	}
	if len(s)-start > len(best) {
		best = s[start:]
	}
	return best
}

// regexLiteral is a literal every match of a regex contains.
type regexLiteral struct {
	runes []rune
	fold  bool
}

// requiredLiterals lists literals that every match of re contains: those
// of a concatenation, through captures and repetitions of at least one.
func requiredLiterals(re *syntax.Regexp) []regexLiteral {
	switch re.Op {
	case syntax.OpLiteral:
		return []regexLiteral{{runes: re.Rune, fold: re.Flags&syntax.FoldCase != 0}}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []regexLiteral
		for _, sub := range re.Sub {
			out = append(out, requiredLiterals(sub)...)
		}
		return out
	}
	return nil
}

var asciiLower, asciiUpper [256]byte

func init() {
	for i := range 256 {
		asciiLower[i], asciiUpper[i] = byte(i), byte(i)
	}
	for c := 'a'; c <= 'z'; c++ {
		asciiUpper[c] = byte(c - 'a' + 'A')
		asciiLower[c-'a'+'A'] = byte(c)
	}
}

// byteFreq is how often each byte occurs in source text, per million
// bytes (measured over the text files of the Go distribution's src); the
// prefilter anchors on the rarest byte of its literal.
var byteFreq = [256]uint32{
	0, 1, 1, 1, 1, 1, 1, 1, 0, 38202, 30717, 0, 0, 1, 0, 0,
	1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	145755, 1244, 9204, 280, 573, 846, 1088, 1027, 11599, 11593, 1963, 1216, 23939, 2541, 12928, 11986,
	33132, 13632, 10485, 7454, 7795, 4767, 7064, 4047, 6003, 4240, 10134, 1387, 1062, 8550, 794, 81,
	61, 6655, 3315, 5284, 4601, 6535, 3607, 1878, 1657, 5243, 228, 909, 3776, 4068, 3537, 5296,
	4727, 776, 6385, 7673, 6833, 2115, 3621, 1240, 3839, 1122, 478, 2490, 5179, 2484, 123, 7453,
	451, 29750, 7988, 18046, 15740, 49916, 16294, 9817, 9095, 28321, 608, 3938, 18272, 10605, 31737, 25568,
	12659, 717, 33181, 26522, 41032, 15213, 6307, 3706, 21150, 6533, 984, 6520, 1067, 6497, 41, 0,
	29, 13, 28, 19, 9, 15, 11, 4, 20, 9, 10, 4, 6, 2, 5, 2,
	6, 4, 4, 6, 11, 12, 4, 9, 12, 10, 2, 2, 10, 12, 5, 3,
	3, 4, 3, 4, 9, 8, 6, 7, 4, 10, 6, 7, 8, 7, 5, 3,
	3, 9, 8, 8, 5, 5, 3, 190, 4, 16, 8, 6, 13, 7, 9, 3,
	0, 0, 210, 9, 1, 1, 1, 2, 1, 3, 3, 1, 8, 3, 25, 6,
	2, 2, 1, 1, 1, 2, 2, 4, 22, 25, 1, 1, 1, 1, 1, 1,
	6, 16, 80, 23, 5, 9, 13, 7, 6, 2, 2, 1, 1, 1, 1, 1,
	7, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
}
