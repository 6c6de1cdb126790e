package tracker

import (
	"fmt"
	"slices"
)

// The readiness rules as data: which links block, and which statuses are
// done or may be ready. The store's SQL is generated from these sets, so a
// rule changed here changes everywhere (see store/rules.go).
var (
	// BlockingRelTypes gate readiness: from waits until to is done.
	BlockingRelTypes = []RelType{RelBlocks, RelDependsOn}
	// DoneIssueStatuses and DoneSpecStatuses finish an item: it blocks nothing.
	DoneIssueStatuses = []IssueStatus{IssueClosed}
	DoneSpecStatuses  = []SpecStatus{SpecApproved, SpecDeprecated}
	// ReadyIssueStatuses and ReadySpecStatuses are the statuses of an item
	// that is ready when nothing unfinished blocks it.
	ReadyIssueStatuses = []IssueStatus{IssueOpen}
	ReadySpecStatuses  = []SpecStatus{SpecDraft, SpecReview}
	// AnchorStatuses are the states of a feedback anchor.
	AnchorStatuses = []AnchorStatus{AnchorValid, AnchorRelocated, AnchorStale}
)

// Blocking reports whether a relationship type gates readiness.
func (t RelType) Blocking() bool { return slices.Contains(BlockingRelTypes, t) }

// Done reports whether an issue status is finished.
func (s IssueStatus) Done() bool { return slices.Contains(DoneIssueStatuses, s) }

// Done reports whether a spec status is finished.
func (s SpecStatus) Done() bool { return slices.Contains(DoneSpecStatuses, s) }

// Validate checks what JSON decoding cannot: the enumerations hold known
// values and the priority is in range. A record that a hand edit or a
// line-based merge broke is refused when read, rather than left to confuse
// readiness and the counts.
func (r *IssueRecord) Validate() error {
	return firstErr(
		known("status", r.Status, IssueStatuses),
		known("type", r.Type, IssueTypes),
		CheckPriority(r.Priority),
		knownRels(r.Relationships))
}

// Validate: see IssueRecord.Validate.
func (r *SpecRecord) Validate() error {
	return firstErr(
		known("status", r.Status, SpecStatuses),
		known("type", r.Type, SpecTypes),
		CheckPriority(r.Priority),
		knownRels(r.Relationships))
}

// Validate: see IssueRecord.Validate.
func (f *Feedback) Validate() error {
	return firstErr(
		known("status", f.Status, FeedbackStatuses),
		known("type", f.Type, FeedbackTypes),
		known("anchor status", f.Anchor.AnchorStatus, AnchorStatuses))
}

func known[T ~string](field string, v T, valid []T) error {
	if !slices.Contains(valid, v) {
		return fmt.Errorf("invalid %s %q", field, v)
	}
	return nil
}

func knownRels(rs []Relationship) error {
	for _, r := range rs {
		if err := known("relationship type", r.Type, RelTypes); err != nil {
			return err
		}
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
