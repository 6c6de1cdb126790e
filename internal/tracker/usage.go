package tracker

// TaskUsage is what agent tasks cost, every attempt added up whatever its
// status (failed and cancelled ones spent too). A figure no task reported
// stays absent rather than zero: Gemini and Codex report tokens but no
// cost, and a run stopped before its CLI's last event reports nothing.
type TaskUsage struct {
	Tasks int `json:"tasks" jsonschema:"The agent tasks counted, in any status"`
	// Priced is how many of them reported a cost: CostUSD leaves the
	// others out.
	Priced  int          `json:"priced" jsonschema:"How many of those tasks reported a cost; cost_usd adds up theirs only"`
	CostUSD *float64     `json:"cost_usd,omitempty" jsonschema:"Dollars, added up over the tasks that reported a cost; absent when none did"`
	Tokens  *TokenCounts `json:"tokens,omitempty" jsonschema:"Tokens, added up over the tasks that reported them; absent when none did"`
}

// TokenCounts are tokens by kind, as the agent CLIs report them.
type TokenCounts struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
}

// Total is every token read or written, cached or not.
func (t TokenCounts) Total() int64 { return t.Input + t.Output + t.CacheRead + t.CacheWrite }

// IssueCost is one issue's TaskUsage.
type IssueCost struct {
	IssueID string `json:"issue_id" jsonschema:"The issue"`
	TaskUsage
}

// ProjectUsage is what the project's agent tasks cost: all of them (those
// started on no issue too), and the issues that cost the most.
type ProjectUsage struct {
	Total     TaskUsage   `json:"total" jsonschema:"Every agent task of the project"`
	TopIssues []IssueCost `json:"top_issues" jsonschema:"The issues whose tasks cost the most (then used the most tokens), most first"`
}
