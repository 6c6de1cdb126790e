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
