package secret

import "unicode/utf8"

// Redact returns v (a decoded JSON value) with secrets replaced by
// [REDACTED] — the value of a key whose name looks secret, and each secret
// found in a string, the text around it kept — long strings cut and long
// lists capped, for logs, audit lines and traces.
func Redact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if Name(k) {
				out[k] = Redacted
			} else {
				out[k] = Redact(val)
			}
		}
		return out
	case []any:
		n := min(len(x), keepItems)
		out := make([]any, n)
		for i := range n {
			out[i] = Redact(x[i])
		}
		return out
	case string:
		return redactString(x)
	}
	return v
}

// Kept strings are cut to keepRunes and lists to keepItems. Only a
// string's first maskWindow bytes are searched for secrets: that covers
// every secret that starts in the kept part, whole, and keeps the cost of
// a huge argument bounded.
const (
	keepRunes  = 240
	keepItems  = 50
	maskWindow = 4096
)

func redactString(s string) string {
	if len(s) > maskWindow {
		cut := maskWindow
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	s = Mask(s)
	if utf8.RuneCountInString(s) <= keepRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == keepRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
