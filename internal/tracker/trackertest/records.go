package trackertest

import (
	"fmt"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
)

// T0 is the time the fixtures are made at.
var T0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// At is T0 plus n minutes.
func At(n int) time.Time { return T0.Add(time.Duration(n) * time.Minute) }

// Issue is a small valid issue record, updated at minute upd.
func Issue(id, uuid, title string, upd int) tracker.IssueRecord {
	return tracker.IssueRecord{Issue: tracker.Issue{
		ID: id, UUID: uuid, Title: title, Status: tracker.IssueOpen, Type: "task",
		Priority: 2, CreatedAt: T0, UpdatedAt: At(upd), CreatedBy: "alice",
	}}
}

// Rel is a relationship between two issues made at minute created by by.
func Rel(from, to string, typ tracker.RelType, created int, by string) tracker.Relationship {
	return tracker.Relationship{From: from, FromType: tracker.KindIssue, To: to, ToType: tracker.KindIssue,
		Type: typ, CreatedAt: At(created), CreatedBy: by}
}

// Feedback is a valid feedback record with a full anchor, updated at
// minute upd.
func Feedback(id, content string, upd int) tracker.Feedback {
	return tracker.Feedback{
		ID: id, IssueID: "sudocode-aaaa", SpecID: "sudocode-spec-aaaa", Type: "question",
		Status: tracker.FeedbackOpen, Content: content, Agent: "claude",
		Anchor: tracker.Anchor{
			SectionHeading: new("Intro"), SectionLevel: new(2), LineNumber: 3, LineOffset: 1,
			TextSnippet: "some text", ContentHash: "0123456789abcdef", AnchorStatus: tracker.AnchorValid,
			LastVerifiedAt: T0, OriginalLocation: tracker.Location{LineNumber: 3, SectionHeading: new("Intro")},
		},
		CreatedAt: T0, UpdatedAt: At(upd),
	}
}

// DiffLines reports the first differing line of two JSONL files.
func DiffLines(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, gl, wl)
		}
	}
	return "(equal)"
}
