package orchestrator

import "github.com/sudocode/sudocode/internal/orchestrator/agent"

// Usage is tokens and cost, of one run or of a whole task; nil fields are
// unknown (Gemini and Codex report no cost).
type Usage struct {
	CostUSD *float64      `json:"cost_usd,omitempty"`
	Tokens  *agent.Tokens `json:"tokens,omitempty"`
}

// sessionFigures are the session-cumulative figures a CLI last reported
// (Claude's cost, Codex's tokens), kept to turn the next run's into its own.
type sessionFigures struct {
	SessionID string        `json:"session_id"`
	CostUSD   *float64      `json:"cost_usd,omitempty"`
	Tokens    *agent.Tokens `json:"tokens,omitempty"`
}

// runUsage splits what a completion reported into this run's usage, the
// task's new totals and the session figures to remember. Figures the CLI
// counts per session are made per run by subtracting what it reported at
// the end of the previous run of the same session; a new session starts
// from zero.
func runUsage(c *agent.Event, session string, prev runResult) (run, task Usage, seen *sessionFigures) {
	seen = prev.Session
	if c != nil {
		var base sessionFigures
		if prev.Session != nil && prev.Session.SessionID == session {
			base = *prev.Session
		}
		cur := sessionFigures{SessionID: session}
		run.CostUSD, run.Tokens = c.CostUSD, c.Tokens
		if on, _ := c.Data[agent.DataSessionCost].(bool); on && c.CostUSD != nil {
			cur.CostUSD = c.CostUSD
			if base.CostUSD != nil {
				run.CostUSD = new(max(0, *c.CostUSD-*base.CostUSD))
			}
		}
		if on, _ := c.Data[agent.DataSessionTokens].(bool); on && c.Tokens != nil {
			cur.Tokens = c.Tokens
			if base.Tokens != nil {
				run.Tokens = subTokens(*c.Tokens, *base.Tokens)
			}
		}
		if cur.CostUSD != nil || cur.Tokens != nil {
			seen = &cur
		}
	}
	task = prev.TaskUsage
	if run.CostUSD != nil {
		task.CostUSD = new(*run.CostUSD + deref(task.CostUSD))
	}
	if run.Tokens != nil {
		sum := *run.Tokens
		if task.Tokens != nil {
			sum = agent.Tokens{Input: sum.Input + task.Tokens.Input, Output: sum.Output + task.Tokens.Output,
				CacheRead: sum.CacheRead + task.Tokens.CacheRead, CacheWrite: sum.CacheWrite + task.Tokens.CacheWrite}
		}
		task.Tokens = &sum
	}
	return run, task, seen
}

func subTokens(a, b agent.Tokens) *agent.Tokens {
	return &agent.Tokens{Input: max(0, a.Input-b.Input), Output: max(0, a.Output-b.Output),
		CacheRead: max(0, a.CacheRead-b.CacheRead), CacheWrite: max(0, a.CacheWrite-b.CacheWrite)}
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}
