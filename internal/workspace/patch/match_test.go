package patch

import (
	"reflect"
	"strings"
	"testing"
)

func TestTextFileModel(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		lines   []string
		bom     bool
		crlf    bool
		finalNL bool
	}{
		{"empty", "", nil, false, false, false},
		{"lf", "a\nb\n", []string{"a", "b"}, false, false, true},
		{"no final newline", "a\nb", []string{"a", "b"}, false, false, false},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}, false, true, true},
		{"first break decides the style", "a\nb\r\nc", []string{"a", "b", "c"}, false, false, false},
		{"crlf style", "a\r\nb\nc\n", []string{"a", "b", "c"}, false, true, true},
		{"lone CR is content", "a\rb\n", []string{"a\rb"}, false, false, true},
		{"bom", bom + "x\n", []string{"x"}, true, false, true},
		{"bom only", bom, nil, true, false, false},
		{"single newline", "\n", []string{""}, false, false, true},
		{"blank lines kept", "a\n\n\n", []string{"a", "", ""}, false, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := decodeText([]byte(tc.in))
			if !reflect.DeepEqual(f.lines, tc.lines) || f.bom != tc.bom || f.crlf != tc.crlf || f.finalNL != tc.finalNL {
				t.Fatalf("got %+v", f)
			}
			want := tc.in
			if !tc.crlf {
				want = strings.ReplaceAll(want, "\r\n", "\n")
			} else {
				want = strings.ReplaceAll(strings.ReplaceAll(want, "\r\n", "\n"), "\n", "\r\n")
			}
			if got := string(f.encode()); got != want {
				t.Fatalf("round trip: got %q want %q", got, want)
			}
		})
	}
	f := decodeText(nil)
	f.lines = []string{"x"}
	if got := string(f.encode()); got != "x\n" {
		t.Fatalf("an empty file gets a final newline: %q", got)
	}
}

func TestLevels(t *testing.T) {
	tests := []struct {
		file, patch string
		level       int // first level at which they compare equal
	}{
		{"a b", "a b", 0},
		{"a b  \t", "a b", 1},
		{"\t  a b", "a b", 2},
		{"  a b  ", "a b", 2},
		{"x \u2013 y", "x - y", 3},
		{"x \u2014\u2212\u2010 y", "x --- y", 3},
		{"\u2018q\u2019 \u201Cqq\u201D \u201B\u201F", "'q' \"qq\" '\"", 3},
		{"a\u00A0b\u2002c\u200Ad\u202Fe\u205Ff\u3000g", "a b c d e f g", 3},
		{"a\u00A0", "a", 1},
		{"abc", "abd", -1},
		{"a  b", "a b", -1}, // inner whitespace is never collapsed
	}
	for _, tc := range tests {
		got := -1
		for i, lv := range levels {
			if lv.norm(tc.file) == lv.norm(tc.patch) {
				got = i
				break
			}
		}
		if got != tc.level {
			t.Errorf("%q vs %q: level %d, want %d", tc.file, tc.patch, got, tc.level)
		}
	}
}

func TestOverlap(t *testing.T) {
	tests := []struct {
		a, b hunk
		want bool
	}{
		{hunk{start: 0, n: 2}, hunk{start: 2, n: 1}, false},
		{hunk{start: 0, n: 3}, hunk{start: 2, n: 1}, true},
		{hunk{start: 1, n: 1}, hunk{start: 1, n: 1}, true},
		{hunk{start: 2}, hunk{start: 0, n: 2}, false}, // insertion right after
		{hunk{start: 0}, hunk{start: 0, n: 2}, false}, // insertion right before
		{hunk{start: 1}, hunk{start: 0, n: 2}, true},  // insertion inside
		{hunk{start: 1}, hunk{start: 1}, false},
	}
	for i, tc := range tests {
		if got := overlap(tc.a, tc.b); got != tc.want {
			t.Errorf("%d: overlap(%+v, %+v) = %v", i, tc.a, tc.b, got)
		}
		if got := overlap(tc.b, tc.a); got != tc.want {
			t.Errorf("%d: overlap is not symmetric", i)
		}
	}
}
