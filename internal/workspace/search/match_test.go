package search

import (
	"math/rand"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMatcherAgainstRegexp checks the prefilter and line matcher against
// Go's regexp applied line by line, on random text rich in case variants
// and multi-byte characters.
func TestMatcherAgainstRegexp(t *testing.T) {
	alphabet := []string{"a", "A", "b", "k", "K", "\u212A", "s", "S", "\u017F", "é", "É", "ß", " ", "\r", "x", "\t", "foo", "FOO", "Kelvin", "ſtraße"}
	rng := rand.New(rand.NewSource(1))
	var b strings.Builder
	for range 4000 {
		for range rng.Intn(12) {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		b.WriteByte('\n')
	}
	text := b.String()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	queries := []struct {
		q            string
		regex, cases bool
	}{
		{"a", false, false}, {"ab", false, false}, {"ka", false, false}, {"K", false, true}, {"sS", false, false},
		{"é", false, false}, {"É a", false, false}, {"ß", false, false}, {"foo", false, false}, {"FOO", false, true},
		{"x\r", false, false}, {"kelvin", false, false}, {"straße", false, false}, {"\t", false, false},
		{"a+b", true, false}, {"k.s", true, false}, {"^foo", true, false}, {"foo$", true, true}, {`(ab|ba)+x`, true, false},
		{`é\w`, true, false}, {"[kx]{2}", true, false}, {"(?-i)K", true, false}, {`\s$`, true, false}, {"", true, false},
	}
	for _, q := range queries {
		m, err := newLineMatcher(q.q, q.regex, q.cases)
		if err != nil {
			t.Fatalf("%q: %v", q.q, err)
		}
		pat := q.q
		if !q.regex {
			pat = regexp.QuoteMeta(pat)
		}
		if !q.cases {
			pat = "(?i)" + pat
		}
		ref := regexp.MustCompile(pat)
		var want [][2]int
		for i, l := range lines {
			l = strings.TrimSuffix(l, "\r")
			if loc := ref.FindStringIndex(l); loc != nil {
				want = append(want, [2]int{i + 1, loc[0] + 1})
			}
		}
		fs := fileSearch{m: m, ctxLines: 0, previewMax: 4096, line: 1, detail: true, keep: 1 << 30}
		fs.process([]byte(text), true)
		var got [][2]int
		for _, x := range fs.matches {
			got = append(got, [2]int{x.Line, x.Column})
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%q regex=%v case=%v: %d matches, want %d (first diff near %v / %v)", q.q, q.regex, q.cases, len(got), len(want), firstN(got, 3), firstN(want, 3))
		}
		if fs.count != len(want) {
			t.Errorf("%q: count %d, want %d", q.q, fs.count, len(want))
		}
	}
}

func firstN(ms [][2]int, n int) [][2]int { return ms[:min(n, len(ms))] }

func TestFoldSafe(t *testing.T) {
	for r, want := range map[rune]bool{'a': true, 'Z': true, '1': true, ' ': true, 'k': false, 'K': false, 's': false, 'S': false,
		'é': false, '→': true, 'ß': false, '\u212A': false} {
		if got := foldSafe(r); got != want {
			t.Errorf("foldSafe(%q) = %v", r, got)
		}
	}
	if got := longestFoldSafe("kelvins"); got != "elvin" {
		t.Errorf("longestFoldSafe = %q", got)
	}
}
