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
)

// Redacted replaces a secret.
const Redacted = "[REDACTED]"

// name matches names that usually hold secrets: the coding-tools profile's
// words (§5.5), access keys (AWS_ACCESS_KEY_ID) and a bare "auth" word
// (npm's _auth), which GIT_AUTHOR_NAME does not contain.
var name = regexp.MustCompile(`(?i)token|secret|credential|api[_-]?key|apikey|access[_-]?key|passw(or)?d|private|(^|[_-])auth([_-]|$)`)

// Name reports whether a name (an argument, a variable, a key in a
// config file) looks like it holds a secret.
func Name(s string) bool { return name.MatchString(s) }

// Contains reports whether s holds a secret in one of the known formats.
func Contains(s string) bool {
	found := false
	scan(s, func(int, int) bool { found = true; return false })
	return found
}

// Mask returns s with every secret found replaced by [REDACTED]; the text
// around it is kept.
func Mask(s string) string {
	var spans [][2]int
	scan(s, func(start, end int) bool { spans = append(spans, [2]int{start, end}); return true })
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp[1] <= last {
			continue // inside a span already masked
		}
		if sp[0] < last {
			sp[0] = last
		} else {
			b.WriteString(s[last:sp[0]])
			b.WriteString(Redacted)
		}
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// minLen is shorter than any secret the rules find.
const minLen = 8

// scan calls found with the byte span of each secret in s (in rule order,
// possibly overlapping) until it returns false. A rule's regexp runs only
// when one of its trigger words is in s, so ordinary text costs a few
// substring searches.
func scan(s string, found func(start, end int) bool) {
	if len(s) < minLen {
		return
	}
	lower := strings.ToLower(s) // s itself when it has no upper case
	for i := range rules {
		r := &rules[i]
		if !triggered(lower, r.triggers) {
			continue
		}
		for pos := 0; pos < len(s); {
			m := r.re.FindStringSubmatchIndex(s[pos:])
			if m == nil {
				break
			}
			for j := range m {
				if m[j] >= 0 {
					m[j] += pos
				}
			}
			next := max(m[1], pos+1)
			start, end := m[2*r.group], m[2*r.group+1]
			if r.value != nil {
				start, end = r.value(s, m)
				if start < 0 && m[3] > pos {
					// Not a secret: look again from the end of its first
					// group (an assignment's name), so that the value
					// this match swallowed is searched too.
					next = m[3]
				}
			}
			if start >= 0 && !found(start, end) {
				return
			}
			pos = next
		}
	}
}

func triggered(lower string, triggers []string) bool {
	for _, t := range triggers {
		if strings.Contains(lower, t) {
			return true
		}
	}
	return false
}
