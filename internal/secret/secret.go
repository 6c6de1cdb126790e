// Package secret is the one place that knows what a secret looks like: a
// name that usually holds one (API_KEY, github_token), and the formats of
// credentials found in free text — provider tokens, keys, JWTs, auth
// headers, credentials in URLs, password flags and secret-named
// assignments — the formats secret scanners ship rules for. The coding
// tools refuse such environment variables with it, and the audit log and
// traces mask what it finds.
package secret

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Redacted replaces a secret.
const Redacted = "[REDACTED]"

// name matches names that usually hold secrets: the coding tools'
// words (docs/coding-tools.md#child-environment), access keys (AWS_ACCESS_KEY_ID) and a bare "auth" word
// (npm's _auth), which GIT_AUTHOR_NAME does not contain.
var name = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)token|secret|credential|api[_-]?key|apikey|access[_-]?key|passw(or)?d|private|(^|[_-])auth([_-]|$)`)
})

// Name reports whether a name (an argument, a variable, a key in a
// config file) looks like it holds a secret.
func Name(s string) bool { return name().MatchString(s) }

// Contains reports whether s holds a secret in one of the known formats.
func Contains(s string) bool { return len(scan(s, true)) > 0 }

// Mask returns s with every secret found replaced by [REDACTED]; the text
// around it is kept.
func Mask(s string) string {
	spans := scan(s, false)
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.end <= last {
			continue // inside a span already masked
		}
		if sp.start >= last {
			b.WriteString(s[last:sp.start])
			b.WriteString(Redacted)
		}
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// span is the byte range of a secret in a string.
type span struct{ start, end int }

// minLen is shorter than any secret the rules find.
const minLen = 8

// scan returns the spans of the secrets in s (in rule order, possibly
// overlapping; only the first when first is set). A rule runs only when
// one of its trigger words is in s, so ordinary text costs a few
// substring searches and no allocation.
func scan(s string, first bool) []span {
	if len(s) < minLen {
		return nil
	}
	lower := strings.ToLower(s) // s itself when it has no upper case
	var spans []span
	rules := rules()
	for i := range rules {
		if first && len(spans) > 0 {
			break
		}
		r := &rules[i]
		if !triggered(lower, r.triggers) {
			continue
		}
		if r.find != nil {
			spans = r.find(s, spans)
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
			if r.word && m[0] > 0 && isWordByte(s[m[0]-1]) {
				continue // inside a longer word: not this token
			}
			var start, end int
			if r.group == anyGroup {
				start, end = firstGroup(m)
			} else {
				start, end = m[2*r.group], m[2*r.group+1]
			}
			if start >= 0 {
				spans = append(spans, span{start, end})
			}
		}
	}
	return spans
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func triggered(lower string, triggers []string) bool {
	for _, t := range triggers {
		if strings.Contains(lower, t) {
			return true
		}
	}
	return false
}
