package cli

import (
	"fmt"
	"strings"

	"github.com/sudocode/sudocode/internal/orchestrator"
)

// statusPhrase is a task's status as the end of "task ID (agent) …".
func statusPhrase(s orchestrator.Status) string {
	switch s {
	case orchestrator.StatusPending:
		return "is about to start"
	case orchestrator.StatusInProgress:
		return "is running"
	case orchestrator.StatusWaiting:
		return "is waiting for instructions"
	case orchestrator.StatusCancelled:
		return "was cancelled"
	}
	return string(s) // completed, failed
}

// count is "no commits", "1 commit", "2 commits".
func count(n int, noun string) string {
	switch n {
	case 0:
		return "no " + noun + "s"
	case 1:
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// usageText is a task's tokens and cost in words, "" when its CLI
// reported neither.
func usageText(u orchestrator.Usage) string {
	var parts []string
	if t := u.Tokens; t != nil {
		parts = append(parts, fmt.Sprintf("%d tokens in, %d out", t.Input+t.CacheRead+t.CacheWrite, t.Output))
	}
	if u.CostUSD != nil {
		parts = append(parts, money(*u.CostUSD))
	}
	return strings.Join(parts, ", ")
}

// money is a cost in dollars: cents from a dollar up, else four decimals
// (an agent's run often costs a fraction of a cent), never a float's
// binary noise.
func money(usd float64) string {
	if usd >= 1 {
		return fmt.Sprintf("$%.2f", usd)
	}
	return fmt.Sprintf("$%.4f", usd)
}
