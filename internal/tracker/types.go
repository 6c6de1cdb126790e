// Package tracker is the domain of the git-native tracker: issues, specs,
// their relationships and anchored feedback, with the rules for readiness,
// identifiers and validation. It does no I/O; the store package keeps the
// files and the cache.
package tracker

import "time"

// Enumerations. Each has a closed set of values, listed in its Valid* set.
type (
	IssueStatus    string
	IssueType      string
	SpecStatus     string
	SpecType       string
	RelType        string
	FeedbackType   string
	FeedbackStatus string
	AnchorStatus   string
	Kind           string // what an id names: an issue or a spec
)

const (
	IssueOpen       IssueStatus = "open"
	IssueInProgress IssueStatus = "in_progress"
	IssueBlocked    IssueStatus = "blocked"
	IssueClosed     IssueStatus = "closed"

	SpecDraft      SpecStatus = "draft"
	SpecReview     SpecStatus = "review"
	SpecApproved   SpecStatus = "approved"
	SpecDeprecated SpecStatus = "deprecated"

	RelBlocks         RelType = "blocks"
	RelImplements     RelType = "implements"
	RelReferences     RelType = "references"
	RelDependsOn      RelType = "depends-on"
	RelParentChild    RelType = "parent-child"
	RelDiscoveredFrom RelType = "discovered-from"
	RelRelated        RelType = "related"

	FeedbackOpen         FeedbackStatus = "open"
	FeedbackAcknowledged FeedbackStatus = "acknowledged"
	FeedbackResolved     FeedbackStatus = "resolved"
	FeedbackWontFix      FeedbackStatus = "wont_fix"

	AnchorValid     AnchorStatus = "valid"
	AnchorRelocated AnchorStatus = "relocated"
	AnchorStale     AnchorStatus = "stale"

	KindIssue Kind = "issue"
	KindSpec  Kind = "spec"
)

// The values of each enumeration, in the order help texts and stats show them.
var (
	IssueStatuses    = []IssueStatus{IssueOpen, IssueInProgress, IssueBlocked, IssueClosed}
	IssueTypes       = []IssueType{"bug", "feature", "task", "epic", "chore"}
	SpecStatuses     = []SpecStatus{SpecDraft, SpecReview, SpecApproved, SpecDeprecated}
	SpecTypes        = []SpecType{"architecture", "api", "database", "feature", "research"}
	RelTypes         = []RelType{RelBlocks, RelImplements, RelReferences, RelDependsOn, RelParentChild, RelDiscoveredFrom, RelRelated}
	FeedbackTypes    = []FeedbackType{"ambiguity", "missing_requirement", "technical_constraint", "suggestion", "question"}
	FeedbackStatuses = []FeedbackStatus{FeedbackOpen, FeedbackAcknowledged, FeedbackResolved, FeedbackWontFix}
)

// Defaults of the create commands.
const (
	DefaultIssueType    IssueType    = "task"
	DefaultSpecType     SpecType     = "feature"
	DefaultPriority                  = 2
	DefaultFeedbackType FeedbackType = "ambiguity"
	DefaultRelType                   = RelReferences
	DefaultCloseReason               = "Completed"
	DefaultPrefix                    = "sudocode"
)

// Relationship is a directed link. For blocks and depends-on, From waits
// until To is done; for parent-child, From is the parent.
type Relationship struct {
	From      string    `json:"from"`
	FromType  Kind      `json:"from_type"`
	To        string    `json:"to"`
	ToType    Kind      `json:"to_type"`
	Type      RelType   `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	CreatedBy string    `json:"created_by"`
}

// Issue is a work item.
type Issue struct {
	ID          string      `json:"id"`
	UUID        string      `json:"uuid"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Status      IssueStatus `json:"status"`
	Type        IssueType   `json:"type"`
	Priority    int         `json:"priority"`
	Assignee    *string     `json:"assignee"`
	Estimate    *int        `json:"estimate"`
	ParentID    *string     `json:"parent_id"`
	Tags        []string    `json:"tags"`
	CreatedAt   time.Time   `json:"created_at"`
	UpdatedAt   time.Time   `json:"updated_at"`
	ClosedAt    *time.Time  `json:"closed_at"`
	CloseReason *string     `json:"close_reason"`
	CreatedBy   string      `json:"created_by"`
}

// Spec is a specification; its body is a markdown file at FilePath,
// relative to the .sudocode directory.
type Spec struct {
	ID          string     `json:"id"`
	UUID        string     `json:"uuid"`
	Title       string     `json:"title"`
	Description *string    `json:"description"`
	Type        SpecType   `json:"type"`
	Status      SpecStatus `json:"status"`
	Priority    int        `json:"priority"`
	FilePath    string     `json:"file_path"`
	ParentID    *string    `json:"parent_id"`
	Tags        []string   `json:"tags"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	CreatedBy   string     `json:"created_by"`
}

// IssueRecord is one line of issues.jsonl: the issue and its outgoing
// relationships.
type IssueRecord struct {
	Issue
	Relationships []Relationship `json:"relationships"`
}

// SpecRecord is one line of specs.jsonl.
type SpecRecord struct {
	Spec
	Relationships []Relationship `json:"relationships"`
}

// Location is where an anchor first pointed.
type Location struct {
	LineNumber     int     `json:"line_number"`
	SectionHeading *string `json:"section_heading"`
}

// Anchor ties feedback to a place in a spec's markdown body, with enough
// context to find the place again after the body changes.
type Anchor struct {
	SectionHeading   *string      `json:"section_heading"`
	SectionLevel     *int         `json:"section_level"`
	LineNumber       int          `json:"line_number"` // 1-based
	LineOffset       int          `json:"line_offset"` // LineNumber minus the heading's line (or LineNumber with no heading)
	TextSnippet      string       `json:"text_snippet"`
	ContextBefore    string       `json:"context_before"`
	ContextAfter     string       `json:"context_after"`
	ContentHash      string       `json:"content_hash"`
	AnchorStatus     AnchorStatus `json:"anchor_status"`
	LastVerifiedAt   time.Time    `json:"last_verified_at"`
	OriginalLocation Location     `json:"original_location"`
}

// Feedback is anchored feedback from an issue (its author) on a spec.
type Feedback struct {
	ID         string         `json:"id"`
	IssueID    string         `json:"issue_id"`
	SpecID     string         `json:"spec_id"`
	Type       FeedbackType   `json:"type"`
	Status     FeedbackStatus `json:"status"`
	Content    string         `json:"content"`
	Agent      string         `json:"agent"`
	Anchor     Anchor         `json:"anchor"`
	Resolution *string        `json:"resolution"`
	CreatedAt  time.Time      `json:"created_at"`
	UpdatedAt  time.Time      `json:"updated_at"`
}
