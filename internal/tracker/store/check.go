package store

import (
	"fmt"

	"github.com/sudocode/sudocode/internal/tracker"
)

// The values of each enumeration a record read from a file may hold.
var (
	issueStatuses    = set(tracker.IssueStatuses)
	issueTypes       = set(tracker.IssueTypes)
	specStatuses     = set(tracker.SpecStatuses)
	specTypes        = set(tracker.SpecTypes)
	relTypes         = set(tracker.RelTypes)
	feedbackStatuses = set(tracker.FeedbackStatuses)
	feedbackTypes    = set(tracker.FeedbackTypes)
	anchorStatuses   = set([]tracker.AnchorStatus{tracker.AnchorValid, tracker.AnchorRelocated, tracker.AnchorStale})
)

func set[T ~string](vs []T) map[string]bool {
	m := map[string]bool{}
	for _, v := range vs {
		m[string(v)] = true
	}
	return m
}

// checkRecord checks what JSON decoding cannot: a record read from a file
// has an id, values the enumerations know and, for a spec, a file_path
// that the body rule allows (bodypath.go). It returns the record's id and
// the spec's file_path ("" for other records).
// A record that a hand edit or a line-based merge broke is refused when
// read, rather than left to confuse readiness and the counts.
func checkRecord(v any) (id, body string, err error) {
	enum := func(field, val string, valid map[string]bool) {
		if err == nil && !valid[val] {
			err = fmt.Errorf("invalid %s %q", field, val)
		}
	}
	prio := func(p int) {
		if err == nil {
			err = tracker.CheckPriority(p)
		}
	}
	rels := func(rs []tracker.Relationship) {
		for _, r := range rs {
			enum("relationship type", string(r.Type), relTypes)
		}
	}
	switch r := v.(type) {
	case *tracker.IssueRecord:
		id = r.ID
		enum("status", string(r.Status), issueStatuses)
		enum("type", string(r.Type), issueTypes)
		prio(r.Priority)
		rels(r.Relationships)
	case *tracker.SpecRecord:
		id = r.ID
		enum("status", string(r.Status), specStatuses)
		enum("type", string(r.Type), specTypes)
		prio(r.Priority)
		rels(r.Relationships)
		switch {
		case err != nil:
		case r.FilePath == "":
			err = fmt.Errorf("no file_path")
		default:
			err = checkRecordPath(r.FilePath)
		}
		body = r.FilePath
	case *tracker.Feedback:
		id = r.ID
		enum("status", string(r.Status), feedbackStatuses)
		enum("type", string(r.Type), feedbackTypes)
		enum("anchor status", string(r.Anchor.AnchorStatus), anchorStatuses)
	default:
		return "", "", nil
	}
	if id == "" {
		return "", "", fmt.Errorf("no id")
	}
	return id, body, err
}
