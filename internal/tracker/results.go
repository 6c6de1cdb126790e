package tracker

import (
	"time"
	"unicode/utf8"
)

// Relationships are an item's links, both ways.
type Relationships struct {
	Outgoing []Relationship `json:"outgoing" jsonschema:"Links from this item"`
	Incoming []Relationship `json:"incoming" jsonschema:"Links to this item"`
}

// IssueDetail is show's result for an issue.
type IssueDetail struct {
	Issue
	Relationships Relationships `json:"relationships" jsonschema:"The issue's links, both ways"`
	BlockedBy     []Blocker     `json:"blocked_by" jsonschema:"Unfinished items the issue waits on, direct or inherited from a parent"`
	Feedback      []Feedback    `json:"feedback" jsonschema:"Feedback this issue gave on specs"` // feedback this issue gave
	// The issue's activity, from its activity shard (activity.go).
	Comments []Comment      `json:"comments" jsonschema:"Comments on the issue, oldest first"`
	History  []HistoryEvent `json:"history" jsonschema:"Changes of the issue's status, assignee and links, and its agent tasks, oldest first"`
	// EarlierComments and EarlierHistory count what a reader that keeps
	// only the latest (the MCP server, for an agent's context) left out.
	EarlierComments int `json:"earlier_comments,omitempty" jsonschema:"How many earlier comments were left out (sudocode issue show --json has them all)"`
	EarlierHistory  int `json:"earlier_history,omitempty" jsonschema:"How many earlier history entries were left out (sudocode issue show --json has them all)"`
	// Tasks are filled by the callers that know the agent orchestrator of
	// the repository (the CLI, the MCP server); absent when there are none.
	Tasks []TaskRef `json:"tasks,omitempty" jsonschema:"The agent tasks started on this issue, oldest first"`
	// Usage is filled by the same callers: every task's usage added up.
	Usage *TaskUsage `json:"usage,omitempty" jsonschema:"What the agent tasks started on this issue cost, every attempt added up; absent when there are none"`
}

// TaskRef is an agent task (of the orchestrator) working on an issue.
type TaskRef struct {
	ID        string    `json:"id" jsonschema:"The task's id (task://{id})"`
	Tool      string    `json:"tool" jsonschema:"The agent: CLAUDECODE, GEMINI, CODEX, OPENCODE or COMMAND"`
	Status    string    `json:"status" jsonschema:"pending, in_progress, waiting, completed, failed or cancelled"`
	State     string    `json:"state" jsonschema:"The status, or merged, conflicted or ended (a completed task merged, refused for a conflict, or ended without a merge)"`
	StateText string    `json:"state_text" jsonschema:"The state in words, as the dashboard shows it (waiting for review, merged, ...)"`
	Branch    string    `json:"branch" jsonschema:"The task's git branch"`
	CreatedAt time.Time `json:"created_at" jsonschema:"When the task was created"`
}

// SpecDetail is show's result for a spec.
type SpecDetail struct {
	Spec
	Content       string        `json:"content" jsonschema:"The spec's markdown"`
	Relationships Relationships `json:"relationships" jsonschema:"The spec's links, both ways"`
	Feedback      []Feedback    `json:"feedback" jsonschema:"Feedback this spec received"` // feedback this spec received
}

// FeedbackLocation is where an anchor points in the spec as it is now.
type FeedbackLocation struct {
	LineNumber     int     `json:"line_number" jsonschema:"The line the anchor points at now, from 1"`
	LineText       string  `json:"line_text" jsonschema:"That line"`
	SectionHeading *string `json:"section_heading" jsonschema:"The heading of its section, or null"`
}

// FeedbackDetail is show's result for feedback; Location is null when the
// anchor is stale or its line is gone.
type FeedbackDetail struct {
	Feedback
	Location *FeedbackLocation `json:"location" jsonschema:"Where the anchor points in the spec now; null when it is stale"`
}

// Compact is a list item: enough to choose, small enough for a model's
// context.
type Compact struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Status      string `json:"status"`
	Priority    int    `json:"priority"`
	Type        string `json:"type"`
	Description string `json:"description"`
}

// CompactLen is the longest description in a compact item, in characters.
const CompactLen = 120

// Shorten cuts s to CompactLen characters, marking the cut with "…". A
// list of every issue shortens every description: it slices s where it
// cuts instead of converting it to runes and back.
func Shorten(s string) string {
	if len(s) <= CompactLen { // never more characters than bytes
		return s
	}
	if ascii(s[:CompactLen]) { // then byte CompactLen starts character CompactLen+1
		return s[:CompactLen-1] + "…"
	}
	n, cut := 0, 0
	for i := range s {
		switch n {
		case CompactLen - 1:
			cut = i
		case CompactLen:
			if !utf8.ValidString(s[:cut]) {
				// Each invalid byte counts as a character, cut as U+FFFD.
				return string([]rune(s)[:CompactLen-1]) + "…"
			}
			return s[:cut] + "…"
		}
		n++
	}
	return s
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// BlockedItem is an item of blocked's result.
type BlockedItem struct {
	Compact
	BlockedBy []Blocker `json:"blocked_by"`
}

// CloseResult is one id's outcome in a close of several.
type CloseResult struct {
	ID      string  `json:"id" jsonschema:"The issue id"`
	Success bool    `json:"success" jsonschema:"Whether it was closed"`
	Error   *string `json:"error" jsonschema:"Why not, or null"`
}

// LinkResult is link's result.
type LinkResult struct {
	From    string  `json:"from"`
	To      string  `json:"to"`
	Type    RelType `json:"type"`
	Success bool    `json:"success"`
}

// InitResult is init's result.
type InitResult struct {
	Success bool   `json:"success"`
	Path    string `json:"path" jsonschema:"The .sudocode directory"`
	Prefix  string `json:"prefix" jsonschema:"The id prefix"`
}

// Stats is the stats command's result, in the shape the tracker's
// requirement fixes (docs/servers.md#tracker-tools).
type Stats struct {
	Specs struct {
		Total    int            `json:"total"`
		ByStatus map[string]int `json:"by_status"`
		ByType   map[string]int `json:"by_type"`
		Ready    int            `json:"ready"`
	} `json:"specs"`
	Issues struct {
		Total    int            `json:"total"`
		ByStatus map[string]int `json:"by_status"`
		ByType   map[string]int `json:"by_type"`
		Ready    int            `json:"ready"`
		Blocked  int            `json:"blocked"`
	} `json:"issues"`
	Relationships struct {
		Total  int            `json:"total"`
		ByType map[string]int `json:"by_type"`
	} `json:"relationships"`
	RecentActivity struct {
		SpecsUpdated  int `json:"specs_updated"`
		IssuesUpdated int `json:"issues_updated"`
		IssuesCreated int `json:"issues_created"`
		IssuesClosed  int `json:"issues_closed"`
	} `json:"recent_activity"`
	// Usage is filled by the callers that know the repository's task
	// store; absent when it holds no task.
	Usage *ProjectUsage `json:"usage,omitempty" jsonschema:"What the project's agent tasks cost; absent when there are none"`
}

// Status is the status command's result: a smaller Stats.
type Status struct {
	Specs struct {
		Total    int            `json:"total"`
		ByStatus map[string]int `json:"by_status"`
	} `json:"specs"`
	Issues struct {
		Total      int            `json:"total"`
		ByStatus   map[string]int `json:"by_status"`
		Ready      int            `json:"ready"`
		Blocked    int            `json:"blocked"`
		ReadyIDs   []string       `json:"ready_ids,omitzero"` // verbose only; then a list, even empty
		BlockedIDs []string       `json:"blocked_ids,omitzero"`
	} `json:"issues"`
}

// CompactFeedback is a feedback list item.
type CompactFeedback struct {
	ID           string         `json:"id"`
	IssueID      string         `json:"issue_id"`
	SpecID       string         `json:"spec_id"`
	Type         FeedbackType   `json:"type"`
	Status       FeedbackStatus `json:"status"`
	AnchorStatus AnchorStatus   `json:"anchor_status"`
	LineNumber   int            `json:"line_number"`
	Content      string         `json:"content"`
}

// IssueList, SpecList and FeedbackList are the list commands' results:
// one page of items, how many matched in all, whether more follow the
// page, and then a hint to narrow the query and the cursor that continues
// it (null on the last page).
type IssueList struct {
	Issues       []Compact `json:"issues"`
	Total        int       `json:"total"`
	Truncated    bool      `json:"truncated"`
	Hint         *string   `json:"hint"`
	NextCursor   *string   `json:"next_cursor"`
	Page         Page      `json:"-"`
	HiddenClosed int       `json:"-"` // closed issues a HideClosed list left out
}

type SpecList struct {
	Specs      []Compact `json:"specs"`
	Total      int       `json:"total"`
	Truncated  bool      `json:"truncated"`
	Hint       *string   `json:"hint"`
	NextCursor *string   `json:"next_cursor"`
	Page       Page      `json:"-"`
}

type FeedbackList struct {
	Feedback   []CompactFeedback `json:"feedback"`
	Total      int               `json:"total"`
	Truncated  bool              `json:"truncated"`
	Hint       *string           `json:"hint"`
	NextCursor *string           `json:"next_cursor"`
	Page       Page              `json:"-"`
}

// Page is what a page of a list knows beyond its JSON: the cursor that
// continues the list after each of its items (so that a caller showing
// only the first n items, to fit a budget, continues after the n-th), and
// how many items of the list came before the page.
type Page struct {
	Items int // the page's length
	// After is the cursor after the page's n-th item, 1 <= n <= Items. It
	// is made when asked for: the cursors of a whole list of 100,000
	// items cost as much as reading it.
	After   func(n int) string
	Skipped int
}

// ReadyResult is ready's result; a list is present only when asked for.
// NextCursor continues both lists (null when neither has more).
type ReadyResult struct {
	Issues     *[]Compact `json:"issues,omitempty"`
	Specs      *[]Compact `json:"specs,omitempty"`
	NextCursor *string    `json:"next_cursor"`
}

// BlockedResult is blocked's result; a list is present only when asked for.
// NextCursor continues both lists (null when neither has more).
type BlockedResult struct {
	Issues     *[]BlockedItem `json:"issues,omitempty"`
	Specs      *[]BlockedItem `json:"specs,omitempty"`
	NextCursor *string        `json:"next_cursor"`
}

// SearchHit is one search result: a compact item, what kind it is, and the
// text around the first match.
type SearchHit struct {
	Kind Kind `json:"kind"`
	Compact
	Snippet string `json:"snippet"`
}

// SearchResult is search's result, paged as the lists are.
type SearchResult struct {
	Results    []SearchHit `json:"results"`
	Total      int         `json:"total"`
	Truncated  bool        `json:"truncated"`
	Hint       *string     `json:"hint"`
	NextCursor *string     `json:"next_cursor"`
	Page       Page        `json:"-"`
}
