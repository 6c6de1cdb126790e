package rulesets

import (
	"fmt"
	"strings"
)

// FormatResolved renders what applies to a path for an agent: a summary
// line, then each ruleset in order with its origin and size, and its
// markdown.
func FormatResolved(path, agent string, applied []Applied) string {
	where := "the repository"
	if path != "" {
		where = path
	}
	if agent != "" {
		where += " for " + agent
	}
	if len(applied) == 0 {
		return "No rulesets apply to " + where
	}
	total := 0
	for _, a := range applied {
		total += a.Tokens
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d ruleset(s) apply to %s, in order (about %d tokens):", len(applied), where, total)
	for i, a := range applied {
		fmt.Fprintf(&b, "\n\n=== %d. %s (%s; about %d tokens): %s ===\n%s", i+1, a.Name, a.Origin, a.Tokens, a.Description, strings.Trim(a.Markdown, "\n"))
	}
	return b.String()
}
