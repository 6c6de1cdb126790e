package workspace

import "regexp"

// sensitiveKey matches names that usually hold secrets: the profile's
// words (§5.5), plus access keys (AWS_ACCESS_KEY_ID) and a bare "auth"
// word (npm's _auth), which GIT_AUTHOR_NAME does not contain.
var sensitiveKey = regexp.MustCompile(`(?i)token|secret|credential|api[_-]?key|apikey|access[_-]?key|passw(or)?d|private|(^|[_-])auth([_-]|$)`)

// secretValue matches values that look like secrets whatever their name:
// PEM private keys, GitHub tokens, sk- keys and AWS access key ids.
var secretValue = regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----|\bgh[pousr]_[A-Za-z0-9]{16,}|\bsk-[A-Za-z0-9_-]{16,}|\bAKIA[A-Z0-9]{16}\b`)

// SensitiveKey reports whether a name (an argument or an environment
// variable) looks like it holds a secret.
func SensitiveKey(name string) bool { return sensitiveKey.MatchString(name) }

// SecretValue reports whether a string looks like a secret.
func SecretValue(v string) bool { return secretValue.MatchString(v) }

// Redact returns v with secrets replaced by "[REDACTED]", long strings
// cut and long lists capped, for logs and traces.
func Redact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if SensitiveKey(k) {
				out[k] = "[REDACTED]"
			} else {
				out[k] = Redact(val)
			}
		}
		return out
	case []any:
		n := min(len(x), 50)
		out := make([]any, n)
		for i := range n {
			out[i] = Redact(x[i])
		}
		return out
	case string:
		if SecretValue(x) {
			return "[REDACTED]"
		}
		if r := []rune(x); len(r) > 240 {
			return string(r[:240]) + "…"
		}
		return x
	}
	return v
}
