package tracker

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestShorten checks Shorten against its definition: up to CompactLen
// characters unchanged, else the first CompactLen-1 and "…", a character
// being a rune as []rune counts them (an invalid byte is one, read as
// U+FFFD).
func TestShorten(t *testing.T) {
	for _, s := range []string{
		"",
		"short",
		strings.Repeat("a", CompactLen),
		strings.Repeat("a", CompactLen+1),
		strings.Repeat("é", CompactLen),
		strings.Repeat("é", CompactLen+1),
		strings.Repeat("🚀", CompactLen-1) + "x",
		strings.Repeat("🚀", CompactLen+1),
		strings.Repeat("a", CompactLen-2) + "日本語",
		strings.Repeat("a", 60) + "\xff\xfe" + strings.Repeat("b", 100),
		strings.Repeat("a", 200) + "\xff",
		"\xe2\x82" + strings.Repeat("c", 130),
		strings.Repeat("Some words about the work. ", 8),
	} {
		if got, want := Shorten(s), byDefinition(s); got != want {
			t.Errorf("Shorten(%q) = %q, want %q", s, got, want)
		}
	}
}

// byDefinition is Shorten as it was first written.
func byDefinition(s string) string {
	if utf8.RuneCountInString(s) <= CompactLen {
		return s
	}
	return string([]rune(s)[:CompactLen-1]) + "…"
}

func FuzzShorten(f *testing.F) {
	f.Add(strings.Repeat("é", CompactLen+1))
	f.Add(strings.Repeat("a", 100) + "\xff" + strings.Repeat("b", 30))
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Shorten(s), byDefinition(s); got != want {
			t.Errorf("Shorten(%q) = %q, want %q", s, got, want)
		}
	})
}
