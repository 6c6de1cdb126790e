package cli

import (
	"testing"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// Costs as agents report them (sums of floats) print rounded; tokens
// count what the model read, cached or not.
func TestUsageText(t *testing.T) {
	cost, big := 0.012112000000000001, 1.2345
	cases := []struct {
		u    orchestrator.Usage
		want string
	}{
		{orchestrator.Usage{}, ""},
		{orchestrator.Usage{CostUSD: &cost}, "$0.0121"},
		{orchestrator.Usage{CostUSD: &big, Tokens: &agent.Tokens{Input: 10, CacheRead: 5, Output: 7}}, "15 tokens in, 7 out, $1.23"},
	}
	for _, c := range cases {
		if got := usageText(c.u); got != c.want {
			t.Errorf("usageText(%+v) = %q, want %q", c.u, got, c.want)
		}
	}
}

// A usage event in the log says what it counts: it has no text of its own.
func TestLogLineOfUsage(t *testing.T) {
	cost := 0.5
	e := orchestrator.StoredEvent{Seq: 7, Event: agent.Event{Kind: agent.KindUsage, Tokens: &agent.Tokens{Input: 3, Output: 4}, CostUSD: &cost}}
	if got, want := logLine(e), "   7 usage: 3 tokens in, 4 out, $0.5000"; got != want {
		t.Errorf("logLine = %q, want %q", got, want)
	}
}
