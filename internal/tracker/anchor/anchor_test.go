package anchor

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/tracker"
)

var (
	t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	t1 = t0.Add(time.Hour)
)

// body joins lines into a body with a final newline.
func body(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

func hash16(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:16]
}

// The base spec most relocation cases edit.
var base = body(
	"# Spec", // 1
	"",
	"Intro paragraph.",
	"",
	"## Auth flow", // 5
	"",
	"Users log in with a token.", // 7
	"Tokens expire after an hour.",
	"",
	"## Storage", // 10
	"",
	"Data lives in SQLite.",
	"Backups run nightly.",
)

// anchorAt anchors any line, blank ones too, as trackers did before New
// refused blank lines: relocation must still handle what files hold.
func anchorAt(body string, line int, now time.Time) (tracker.Anchor, error) {
	d := parse(body)
	if err := d.checkLine(line); err != nil {
		return tracker.Anchor{}, err
	}
	return d.newAnchor(line-1, snippetOf(d.lines[line-1]), now), nil
}

func TestNew(t *testing.T) {
	long := strings.Repeat("é", 30) + strings.Repeat("日", 30) // 60 runes, multi-byte
	tests := []struct {
		name       string
		body       string
		line       int
		wantErr    string
		snippet    string
		heading    *string
		level      *int
		offset     int
		before     string
		after      string
		origLineOK bool
	}{
		{name: "line in a section", body: base, line: 7,
			snippet: "Users log in with a token.", heading: new("Auth flow"), level: new(2), offset: 2,
			before: "## Auth flow", after: "Tokens expire after an hour."},
		{name: "heading line itself", body: base, line: 5,
			snippet: "## Auth flow", heading: new("Auth flow"), level: new(2), offset: 0,
			before: "Intro paragraph.", after: "Users log in with a token."},
		{name: "first line", body: base, line: 1,
			snippet: "# Spec", heading: new("Spec"), level: new(1), offset: 0,
			before: "", after: "Intro paragraph."},
		{name: "last line", body: base, line: 13,
			snippet: "Backups run nightly.", heading: new("Storage"), level: new(2), offset: 3,
			before: "Data lives in SQLite.", after: ""},
		{name: "no heading", body: body("plain", "", "  text here  "), line: 3,
			snippet: "text here", offset: 3, before: "plain", after: ""},
		{name: "blank line", body: base, line: 6,
			wantErr: "line 6 is blank: anchor feedback on a line with text (the nearest are line 5 and line 7)"},
		{name: "whitespace-only line", body: body("a", " \t ", "", "b"), line: 3,
			wantErr: "line 3 is blank: anchor feedback on a line with text (the nearest are line 1 and line 4)"},
		{name: "blank last line", body: body("a", "", ""), line: 3,
			wantErr: "line 3 is blank: anchor feedback on a line with text (the nearest is line 1)"},
		{name: "blank body", body: body("", " "), line: 1,
			wantErr: "line 1 is blank: anchor feedback on a line with text (the spec has no line with text)"},
		{name: "heading in backtick fence ignored", body: body("## Real", "```go", "# not a heading", "```", "line"), line: 5,
			snippet: "line", heading: new("Real"), level: new(2), offset: 4, before: "```", after: ""},
		{name: "line inside a fence", body: body("## Real", "```", "# not a heading", "```"), line: 3,
			snippet: "# not a heading", heading: new("Real"), level: new(2), offset: 2, before: "```", after: "```"},
		{name: "tilde fence, longer close", body: body("# A", "~~~~", "## no", "~~~", "## still no", "~~~~~", "x"), line: 7,
			snippet: "x", heading: new("A"), level: new(1), offset: 6, before: "~~~~~", after: ""},
		{name: "unclosed fence runs to the end", body: body("# A", "```", "## no", "x"), line: 4,
			snippet: "x", heading: new("A"), level: new(1), offset: 3, before: "## no", after: ""},
		{name: "inline backticks are not a fence", body: body("# A", "```x``` inline", "## B", "x"), line: 4,
			snippet: "x", heading: new("B"), level: new(2), offset: 1, before: "## B", after: ""},
		{name: "not headings", body: body("# A", "#hashtag", "####### seven", "    # indented code", "x"), line: 5,
			snippet: "x", heading: new("A"), level: new(1), offset: 4, before: "# indented code", after: ""},
		{name: "heading forms", body: body("   ### Deep ###  ", "x"), line: 2,
			snippet: "x", heading: new("Deep"), level: new(3), offset: 1, before: "### Deep ###", after: ""},
		{name: "heading keeps a # glued to its text", body: body("# C#", "x"), line: 2,
			snippet: "x", heading: new("C#"), level: new(1), offset: 1, before: "# C#", after: ""},
		{name: "empty heading", body: body("#", "x"), line: 2,
			snippet: "x", heading: new(""), level: new(1), offset: 1, before: "#", after: ""},
		{name: "unicode cut at 50 runes", body: body("# U", long, long, long), line: 3,
			snippet: string([]rune(long)[:50]), heading: new("U"), level: new(1), offset: 2,
			before: string([]rune(long)[10:]), after: string([]rune(long)[:50])},
		{name: "snippet trimmed after the cut", body: body(strings.Repeat("a", 49) + "  tail"), line: 1,
			snippet: strings.Repeat("a", 49), offset: 1},
		{name: "CRLF body", body: crlf(base), line: 7,
			snippet: "Users log in with a token.", heading: new("Auth flow"), level: new(2), offset: 2,
			before: "## Auth flow", after: "Tokens expire after an hour."},
		{name: "line 0", body: base, line: 0, wantErr: "line 0 is not a line of the spec: lines count from 1"},
		{name: "negative line", body: base, line: -3, wantErr: "line -3 is not a line of the spec: lines count from 1"},
		{name: "past the end", body: base, line: 14, wantErr: "line 14 is past the end of the spec (13 lines)"},
		{name: "trailing newline is no line", body: "a\nb\n", line: 3, wantErr: "line 3 is past the end of the spec (2 lines)"},
		{name: "CRLF trailing newline is no line", body: "a\r\nb\r\n", line: 3, wantErr: "line 3 is past the end of the spec (2 lines)"},
		{name: "one line", body: "a", line: 2, wantErr: "line 2 is past the end of the spec (1 line)"},
		{name: "empty body", body: "", line: 1, wantErr: "line 1 is past the end of the spec (0 lines)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := New(tc.body, tc.line, t0)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tracker.Anchor{
				SectionHeading:   tc.heading,
				SectionLevel:     tc.level,
				LineNumber:       tc.line,
				LineOffset:       tc.offset,
				TextSnippet:      tc.snippet,
				ContextBefore:    tc.before,
				ContextAfter:     tc.after,
				ContentHash:      hash16(tc.snippet),
				AnchorStatus:     tracker.AnchorValid,
				LastVerifiedAt:   t0,
				OriginalLocation: tracker.Location{LineNumber: tc.line, SectionHeading: tc.heading},
			}
			if !reflect.DeepEqual(a, want) {
				t.Errorf("got  %s\nwant %s", show(a), show(want))
			}
			if !utf8.ValidString(a.TextSnippet) || utf8.RuneCountInString(a.TextSnippet) > 50 ||
				utf8.RuneCountInString(a.ContextBefore) > 50 || utf8.RuneCountInString(a.ContextAfter) > 50 {
				t.Errorf("snippet or context too long or split: %s", show(a))
			}
			if a.SectionHeading != nil && a.SectionHeading == a.OriginalLocation.SectionHeading {
				t.Errorf("section heading and original heading share a pointer")
			}
		})
	}
}

func TestNewAtText(t *testing.T) {
	long := strings.Repeat("ü", 60)
	tests := []struct {
		name    string
		body    string
		text    string
		wantErr string
		line    int
		snippet string
	}{
		{name: "text in a line", body: base, text: "  log in  ", line: 7, snippet: "log in"},
		{name: "first occurrence", body: body("## A", "same", "## B", "same"), text: "same", line: 2, snippet: "same"},
		{name: "text in a heading", body: base, text: "Storage", line: 10, snippet: "Storage"},
		{name: "long text cut to 50 runes", body: body("# U", "x "+long+" y"), text: long, line: 2, snippet: string([]rune(long)[:50])},
		{name: "CRLF", body: crlf(base), text: "token.", line: 7, snippet: "token."},
		{name: "absent", body: base, text: "nope", wantErr: `text "nope" is not in the spec`},
		{name: "absent after trim", body: base, text: " not here\t", wantErr: `text "not here" is not in the spec`},
		{name: "empty", body: base, text: "  \t ", wantErr: "text to anchor is empty"},
		{name: "spans lines", body: base, text: "token.\nTokens", wantErr: `text "token.\nTokens" spans several lines: anchor text must be on one line`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line, ferr := FindText(tc.body, tc.text)
			a, err := NewAtText(tc.body, tc.text, t0)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || ferr == nil || ferr.Error() != tc.wantErr {
					t.Fatalf("errs = %v, %v; want %q", ferr, err, tc.wantErr)
				}
				return
			}
			if err != nil || ferr != nil {
				t.Fatal(ferr, err)
			}
			if line != tc.line || a.LineNumber != tc.line || a.TextSnippet != tc.snippet || a.ContentHash != hash16(tc.snippet) {
				t.Fatalf("FindText = %d; anchor %s; want line %d snippet %q", line, show(a), tc.line, tc.snippet)
			}
			// The rest is as New makes it.
			b, err := New(tc.body, tc.line, t0)
			if err != nil {
				t.Fatal(err)
			}
			b.TextSnippet, b.ContentHash = a.TextSnippet, a.ContentHash
			if !reflect.DeepEqual(a, b) {
				t.Errorf("got  %s\nwant %s", show(a), show(b))
			}
		})
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		body    string
		n       int
		text    string
		heading *string
		ok      bool
	}{
		{base, 7, "Users log in with a token.", new("Auth flow"), true},
		{base, 10, "## Storage", new("Storage"), true},
		{base, 6, "", new("Auth flow"), true},
		{body("intro", "# H"), 1, "intro", nil, true},
		{crlf(base), 8, "Tokens expire after an hour.", new("Auth flow"), true},
		{"a\nb", 2, "b", nil, true},
		{base, 0, "", nil, false},
		{base, 14, "", nil, false},
		{"", 1, "", nil, false},
	}
	for _, tc := range tests {
		text, heading, ok := Line(tc.body, tc.n)
		if text != tc.text || !reflect.DeepEqual(heading, tc.heading) || ok != tc.ok {
			t.Errorf("Line(%q, %d) = %q, %v, %v; want %q, %v, %v", tc.body, tc.n, text, str(heading), ok, tc.text, str(tc.heading), tc.ok)
		}
	}
}

// replace returns base with line n (1-based) replaced by the given lines
// (none deletes it).
func replace(b string, n int, with ...string) string {
	ls := strings.Split(strings.TrimSuffix(b, "\n"), "\n")
	out := append([]string{}, ls[:n-1]...)
	out = append(out, with...)
	out = append(out, ls[n:]...)
	return body(out...)
}

func TestRelocate(t *testing.T) {
	tests := []struct {
		name    string
		old     string
		line    int    // anchor New(old, line) ...
		text    string // ... or NewAtText(old, text) when set
		new     string
		status  tracker.AnchorStatus
		at      int     // want LineNumber when valid or relocated
		heading *string // want SectionHeading when valid or relocated
		step    int     // the step that decides (5: stale); 0 to not check
	}{
		{name: "unchanged", old: base, line: 7, new: base,
			status: tracker.AnchorValid, at: 7, heading: new("Auth flow"), step: 1},
		{name: "unchanged, text anchor", old: base, text: "with a token", new: base,
			status: tracker.AnchorValid, at: 7, heading: new("Auth flow"), step: 1},
		{name: "lines changed elsewhere below", old: base, line: 7, new: replace(base, 12, "Data lives in Postgres.", "More."),
			status: tracker.AnchorValid, at: 7, heading: new("Auth flow"), step: 1},
		{name: "in place, heading renamed: valid, section refreshed", old: base, line: 7, new: replace(base, 5, "## Login"),
			status: tracker.AnchorValid, at: 7, heading: new("Login"), step: 1},
		{name: "in place, line edited around the text anchor", old: base, text: "log in", new: replace(base, 7, "All users must log in first."),
			status: tracker.AnchorValid, at: 7, heading: new("Auth flow"), step: 1},
		{name: "lines inserted above in the same section (step 3)", old: base, line: 7,
			new:    replace(base, 7, "Added line one.", "Added line two.", "Users log in with a token."),
			status: tracker.AnchorRelocated, at: 9, heading: new("Auth flow"), step: 3},
		{name: "lines inserted above the section (step 2)", old: base, line: 7,
			new:    replace(base, 3, "Intro paragraph.", "More intro.", "", "Even more."),
			status: tracker.AnchorRelocated, at: 10, heading: new("Auth flow"), step: 2},
		{name: "whole section moved below another (step 2)", old: base, line: 7,
			new: body("# Spec", "", "Intro paragraph.", "",
				"## Storage", "", "Data lives in SQLite.", "Backups run nightly.", "",
				"## Auth flow", "", "Users log in with a token.", "Tokens expire after an hour."),
			status: tracker.AnchorRelocated, at: 12, heading: new("Auth flow"), step: 2},
		{name: "section moved and its level changed (step 2 compares text only)", old: base, line: 7,
			new: body("# Spec", "", "## Storage", "", "Data lives in SQLite.", "",
				"### Auth flow", "", "Users log in with a token.", "Other."),
			status: tracker.AnchorRelocated, at: 9, heading: new("Auth flow"), step: 2},
		{name: "same heading and offset beats a context tie elsewhere (step 2 before 3)", old: base, line: 7,
			new: body("# T", "## Elsewhere", "y", "Users log in with a token.", "Tokens expire after an hour.",
				"## Auth flow", "y", "Users log in with a token.", "Tokens expire after an hour."),
			status: tracker.AnchorRelocated, at: 8, heading: new("Auth flow"), step: 2},
		{name: "anchored line edited, snippet gone", old: base, line: 7, new: replace(base, 7, "Users log in with a password."),
			status: tracker.AnchorStale, step: 5},
		{name: "text deleted", old: base, line: 7, new: replace(base, 7),
			status: tracker.AnchorStale, step: 5},
		{name: "text anchor deleted from its line", old: base, text: "with a token", new: replace(base, 7, "Users log in."),
			status: tracker.AnchorStale, step: 5},
		{name: "whole section deleted", old: base, line: 7, new: body("# Spec", "", "Intro paragraph."),
			status: tracker.AnchorStale, step: 5},
		{name: "body emptied", old: base, line: 7, new: "",
			status: tracker.AnchorStale, step: 5},
		{name: "heading renamed slightly, line moved within it (step 4)", old: base, line: 7,
			new: body("# Spec", "", "Intro paragraph.", "",
				"## Auth flows", "", "Tokens expire after an hour.", "Refresh is automatic.", "Users log in with a token.", "",
				"## Storage", "", "Data lives in SQLite."),
			status: tracker.AnchorRelocated, at: 9, heading: new("Auth flows"), step: 4},
		{name: "heading case changed, line moved within it (step 4, case-insensitive)", old: base, line: 7,
			new:    body("## AUTH FLOW", "", "New first.", "Users log in with a token.", "", "New last."),
			status: tracker.AnchorRelocated, at: 4, heading: new("AUTH FLOW"), step: 4},
		{name: "same heading, line moved and both contexts changed (step 4 at distance 0)", old: base, line: 7,
			new:    body("## Auth flow", "", "Something.", "", "Other.", "Users log in with a token.", "Last."),
			status: tracker.AnchorRelocated, at: 6, heading: new("Auth flow"), step: 4},
		{name: "step 4 takes the line nearest the old offset", old: base, line: 7,
			new:    body("## Auth flows", "a", "Users log in with a token.", "b", "c", "d", "f", "Users log in with a token.", "e"),
			status: tracker.AnchorRelocated, at: 3, heading: new("Auth flows"), step: 4},
		{name: "step 4 takes the line nearest the old offset, below", old: base, line: 7,
			new: body("## Auth flows", "a", "b", "c", "d", "e", "f", "Users log in with a token.", "g", "h", "i", "j",
				"k", "l", "m", "Users log in with a token.", "n"),
			status: tracker.AnchorRelocated, at: 8, heading: new("Auth flows"), step: 4},
		{name: "step 4 ignores a heading renamed too much", old: base, line: 7,
			new:    body("## Authentication", "", "Other.", "Users log in with a token.", "Last."),
			status: tracker.AnchorStale, step: 5},
		{name: "step 4: two near headings at the same distance holding the snippet are ambiguous", old: base, line: 7,
			new: body("## Auth flows", "a", "Users log in with a token.", "b",
				"## Auth flew", "c", "e", "Users log in with a token.", "d"),
			status: tracker.AnchorStale, step: 5},
		{name: "step 4: the nearer heading wins", old: base, line: 7,
			new: body("## Auth flows!", "a", "Users log in with a token.", "b",
				"## Auth flows", "c", "e", "Users log in with a token.", "d"),
			status: tracker.AnchorRelocated, at: 8, heading: new("Auth flows"), step: 4},
		// Heading renamed completely, text duplicated elsewhere. Only context
		// can tell the copies apart: the copy that kept one side of its old
		// context wins (score 0.75); when no copy kept any, nothing tells
		// which is the anchored line, and a wrong place is worse than a
		// stale anchor a person re-anchors, so it is stale.
		{name: "heading renamed completely, duplicate elsewhere: context-matching copy wins", old: base, line: 7,
			new: body("# Spec", "", "Intro paragraph.", "",
				"## Login", "", "Welcome.", "Users log in with a token.", "Tokens expire after an hour.", "",
				"## FAQ", "", "Q: how?", "Users log in with a token.", "Q: why?"),
			status: tracker.AnchorRelocated, at: 8, heading: new("Login"), step: 3},
		{name: "heading renamed completely, duplicate elsewhere, no context kept: stale", old: base, line: 7,
			new: body("# Spec", "", "Intro paragraph.", "",
				"## Login", "", "First, open the app.", "Users log in with a token.", "Then wait.", "",
				"## FAQ", "", "Q: how?", "Users log in with a token.", "Q: why?"),
			status: tracker.AnchorStale, step: 5},
		{name: "step 3: both contexts beat one", old: base, line: 7,
			new: body("## X", "## Auth flow", "Users log in with a token.", "Other.", "",
				"## Y", "", "## Auth flow", "Users log in with a token.", "Tokens expire after an hour."),
			status: tracker.AnchorRelocated, at: 9, heading: new("Auth flow"), step: 3},
		{name: "two identical candidates with equal context: step 3 tie, stale", old: base, line: 7,
			new: body("# Spec", "", "## Part A", "", "X", "Users log in with a token.", "Tokens expire after an hour.", "",
				"## Part B", "", "X", "Users log in with a token.", "Tokens expire after an hour."),
			status: tracker.AnchorStale, step: 5},
		{name: "step 3 tie resolved by step 4", old: base, line: 7,
			new: body("# Spec", "", "## Part A", "", "X", "Users log in with a token.", "Tokens expire after an hour.", "",
				"## Auth flows", "", "X", "Users log in with a token.", "Tokens expire after an hour."),
			status: tracker.AnchorRelocated, at: 12, heading: new("Auth flows"), step: 4},
		{name: "blank line unchanged", old: base, line: 6, new: base,
			status: tracker.AnchorValid, at: 6, heading: new("Auth flow"), step: 1},
		{name: "blank line, change elsewhere", old: base, line: 6, new: replace(base, 13, "Backups run hourly."),
			status: tracker.AnchorValid, at: 6, heading: new("Auth flow"), step: 1},
		{name: "blank line, now whitespace only", old: base, line: 6, new: replace(base, 6, "   \t"),
			status: tracker.AnchorValid, at: 6, heading: new("Auth flow"), step: 1},
		{name: "blank line moved down: not searched, stale", old: base, line: 6, new: replace(base, 3, "Intro paragraph.", "More."),
			status: tracker.AnchorStale, step: 5},
		{name: "blank line in place but context changed: stale", old: base, line: 6, new: replace(base, 7, "Users log in with a password."),
			status: tracker.AnchorStale, step: 5},
		{name: "blank line filled: stale", old: base, line: 6, new: replace(base, 6, "Filled."),
			status: tracker.AnchorStale, step: 5},
		{name: "CRLF: same text, now CRLF", old: base, line: 7, new: crlf(base),
			status: tracker.AnchorValid, at: 7, heading: new("Auth flow"), step: 1},
		{name: "CRLF: lines inserted above", old: crlf(base), line: 7,
			new:    crlf(replace(base, 7, "Added.", "Users log in with a token.")),
			status: tracker.AnchorRelocated, at: 8, heading: new("Auth flow"), step: 3},
		{name: "CRLF: blank line unchanged", old: crlf(base), line: 9, new: crlf(base),
			status: tracker.AnchorValid, at: 9, heading: new("Auth flow"), step: 1},
		{name: "no heading: lines inserted above", old: body("alpha", "beta", "gamma"), line: 2,
			new:    body("new", "alpha", "beta", "gamma"),
			status: tracker.AnchorRelocated, at: 3, step: 3},
		{name: "no heading: a heading added above", old: body("alpha", "beta", "gamma"), line: 2,
			new:    body("# Title", "alpha", "beta", "gamma"),
			status: tracker.AnchorRelocated, at: 3, heading: new("Title"), step: 3},
		{name: "heading-like line in a new fence is not a section", old: base, line: 7,
			new:    body("# Spec", "```", "## Auth flow", "```", "", "## Auth flow", "", "Users log in with a token.", "x"),
			status: tracker.AnchorRelocated, at: 8, heading: new("Auth flow"), step: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var a tracker.Anchor
			var err error
			if tc.text != "" {
				a, err = NewAtText(tc.old, tc.text, t0)
			} else {
				a, err = anchorAt(tc.old, tc.line, t0)
			}
			if err != nil {
				t.Fatal(err)
			}
			got, step := relocate(tc.new, a, t1)
			if pub := Relocate(tc.new, a, t1); !reflect.DeepEqual(pub, got) {
				t.Fatalf("Relocate and relocate differ")
			}
			checkRelocated(t, tc.new, a, got)
			if tc.step != 0 && step != tc.step {
				t.Errorf("decided by step %d, want step %d: %s", step, tc.step, show(got))
			}
			if got.AnchorStatus != tc.status {
				t.Fatalf("status = %s, want %s; got %s", got.AnchorStatus, tc.status, show(got))
			}
			if tc.status == tracker.AnchorStale {
				return
			}
			if got.LineNumber != tc.at || !reflect.DeepEqual(got.SectionHeading, tc.heading) {
				t.Errorf("at line %d under %s, want line %d under %s", got.LineNumber, str(got.SectionHeading), tc.at, str(tc.heading))
			}
			// Position fields are those of a fresh anchor on that line.
			fresh, err := anchorAt(tc.new, got.LineNumber, t1)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.SectionLevel, fresh.SectionLevel) || got.LineOffset != fresh.LineOffset ||
				got.ContextBefore != fresh.ContextBefore || got.ContextAfter != fresh.ContextAfter {
				t.Errorf("got %s\nfresh %s", show(got), show(fresh))
			}
			// Relocating again on the same body is valid in place.
			again := Relocate(tc.new, got, t1)
			if again.AnchorStatus != tracker.AnchorValid || again.LineNumber != got.LineNumber {
				t.Errorf("relocating again: %s", show(again))
			}
		})
	}
}

func TestRelocateEdgeCases(t *testing.T) {
	a, err := New(base, 7, t0)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("stale anchor found again when its text returns", func(t *testing.T) {
		st := Relocate(replace(base, 7), a, t1)
		if st.AnchorStatus != tracker.AnchorStale {
			t.Fatalf("not stale: %s", show(st))
		}
		back := Relocate(base, st, t1)
		if back.AnchorStatus != tracker.AnchorValid || back.LineNumber != 7 {
			t.Errorf("got %s", show(back))
		}
	})

	t.Run("hash mismatch: not valid in place, found again by step 2", func(t *testing.T) {
		b := a
		b.ContentHash = "0000000000000000"
		got := Relocate(base, b, t1)
		if got.AnchorStatus != tracker.AnchorRelocated || got.LineNumber != 7 || got.ContentHash != b.ContentHash {
			t.Errorf("got %s", show(got))
		}
	})

	t.Run("stored line out of range", func(t *testing.T) {
		for _, n := range []int{0, -1, 1000, int(^uint(0) >> 1), -int(^uint(0)>>1) - 1} {
			b := a
			b.LineNumber = n
			b.LineOffset = n
			got := Relocate(base, b, t1)
			// Step 3 finds it by context.
			if got.AnchorStatus != tracker.AnchorRelocated || got.LineNumber != 7 {
				t.Errorf("line %d: got %s", n, show(got))
			}
		}
	})

	t.Run("whitespace-only snippet never matches by itself", func(t *testing.T) {
		b := a
		b.TextSnippet = "  "
		b.ContentHash = hash16("  ")
		got := Relocate(base, b, t1)
		if got.AnchorStatus != tracker.AnchorStale {
			t.Errorf("got %s", show(got))
		}
	})
}

// checkRelocated holds for every Relocate result.
func checkRelocated(t *testing.T, body string, in, out tracker.Anchor) {
	t.Helper()
	if !out.LastVerifiedAt.Equal(t1) {
		t.Errorf("LastVerifiedAt = %v", out.LastVerifiedAt)
	}
	if !reflect.DeepEqual(out.OriginalLocation, in.OriginalLocation) ||
		out.TextSnippet != in.TextSnippet || out.ContentHash != in.ContentHash {
		t.Errorf("original location, snippet or hash changed:\nin  %s\nout %s", show(in), show(out))
	}
	switch out.AnchorStatus {
	case tracker.AnchorStale:
		want := in
		want.AnchorStatus, want.LastVerifiedAt = out.AnchorStatus, out.LastVerifiedAt
		if !reflect.DeepEqual(out, want) {
			t.Errorf("stale anchor changed:\nin  %s\nout %s", show(in), show(out))
		}
	case tracker.AnchorValid, tracker.AnchorRelocated:
		text, heading, ok := Line(body, out.LineNumber)
		if !ok {
			t.Fatalf("line %d is not in the body: %s", out.LineNumber, show(out))
		}
		if strings.TrimSpace(out.TextSnippet) == "" {
			if strings.TrimSpace(text) != "" {
				t.Errorf("blank anchor on non-blank line %q: %s", text, show(out))
			}
		} else if !strings.Contains(text, out.TextSnippet) {
			t.Errorf("line %d %q does not hold snippet %q", out.LineNumber, text, out.TextSnippet)
		}
		if !reflect.DeepEqual(heading, out.SectionHeading) || (heading == nil) != (out.SectionLevel == nil) {
			t.Errorf("section %s/%v, line's section %s", str(out.SectionHeading), out.SectionLevel, str(heading))
		}
		if heading == nil && out.LineOffset != out.LineNumber {
			t.Errorf("offset %d without heading at line %d", out.LineOffset, out.LineNumber)
		}
	default:
		t.Errorf("status %q", out.AnchorStatus)
	}
}

func FuzzRelocate(f *testing.F) {
	f.Add(base, base, 7, "", "", 0, 0, "")
	f.Add(base, replace(base, 5, "## Auth flows"), 7, "token", "x", 3, -2, "Auth")
	f.Add(crlf(base), "", 6, "", " ", 1, 1, "")
	f.Add("# A\n```\n# B\n", "# A\r\n~~~\r\n# B\r\n~~~\r\nx\n", 2, "B", "\xff\xfe", -9, 1<<62, "B")
	f.Add("é日本\n", "é日本", 1, "日", "日", 1, 0, "")
	f.Fuzz(func(t *testing.T, oldBody, newBody string, line int, text, snippet string, lineNo, offset int, heading string) {
		var (
			a   tracker.Anchor
			err error
		)
		if text != "" {
			a, err = NewAtText(oldBody, text, t0)
		} else {
			a, err = New(oldBody, line, t0)
		}
		if err == nil {
			l, _, ok := Line(oldBody, a.LineNumber)
			if !ok || a.AnchorStatus != tracker.AnchorValid || utf8.RuneCountInString(a.TextSnippet) > 50 {
				t.Fatalf("bad new anchor %s", show(a))
			}
			if strings.TrimSpace(a.TextSnippet) != "" && !strings.Contains(l, a.TextSnippet) {
				t.Fatalf("line %q does not hold new snippet %q", l, a.TextSnippet)
			}
			checkRelocated(t, newBody, a, Relocate(newBody, a, t1))
			checkRelocated(t, oldBody, a, Relocate(oldBody, a, t1))
		}
		// An arbitrary stored anchor, as a hand-edited file could hold.
		raw := tracker.Anchor{
			SectionHeading: &heading,
			SectionLevel:   new(len(heading) % 7),
			LineNumber:     lineNo,
			LineOffset:     offset,
			TextSnippet:    snippet,
			ContextBefore:  text,
			ContextAfter:   heading,
			ContentHash:    hash16(snippet),
			AnchorStatus:   tracker.AnchorStale,
		}
		checkRelocated(t, newBody, raw, Relocate(newBody, raw, t1))
		raw.SectionHeading, raw.ContentHash = nil, ""
		checkRelocated(t, newBody, raw, Relocate(newBody, raw, t1))
	})
}

func show(a tracker.Anchor) string {
	lvl := "-"
	if a.SectionLevel != nil {
		lvl = fmt.Sprint(*a.SectionLevel)
	}
	return fmt.Sprintf("%s line=%d off=%d sec=%s/%s snip=%q before=%q after=%q hash=%s at=%s orig=%d/%s",
		a.AnchorStatus, a.LineNumber, a.LineOffset, str(a.SectionHeading), lvl,
		a.TextSnippet, a.ContextBefore, a.ContextAfter, a.ContentHash,
		a.LastVerifiedAt.Format(time.RFC3339), a.OriginalLocation.LineNumber, str(a.OriginalLocation.SectionHeading))
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%q", *p)
}
