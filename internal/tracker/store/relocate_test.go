package store_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

var loginV1 = lines(
	"# Login", // 1
	"",
	"Intro text.", // 3
	"",
	"## Tokens", // 5
	"",
	"Access tokens last 15 minutes.", // 7
	"Refresh tokens last 30 days.",   // 8
	"",
	"## Errors", // 10
	"",
	"Return 401 on expiry.", // 12
)

// loginV2 moves the Errors section above Tokens and grows it by a line.
var loginV2 = lines(
	"# Login", // 1
	"",
	"Intro text.", // 3
	"",
	"## Errors", // 5
	"",
	"Return 401 on expiry.",      // 7
	"Return 403 when forbidden.", // 8
	"",
	"## Tokens", // 10
	"",
	"Access tokens last 15 minutes.", // 12
	"Refresh tokens last 30 days.",   // 13
)

// anchorAt is the part of an anchor a relocation decides.
type anchorAt struct {
	Line    int
	Status  tracker.AnchorStatus
	Heading string
	Snippet string
	Orig    int
}

func at(a tracker.Anchor) anchorAt {
	h := ""
	if a.SectionHeading != nil {
		h = *a.SectionHeading
	}
	return anchorAt{a.LineNumber, a.AnchorStatus, h, a.TextSnippet, a.OriginalLocation.LineNumber}
}

// wantAnchor checks feedback id's anchor, both as the tracker shows it and
// as its file holds it.
func (e *env) wantAnchor(id string, want anchorAt) {
	e.t.Helper()
	if got := at(e.showFeedback(id).Anchor); got != want {
		e.t.Errorf("feedback %s: anchor %+v, want %+v", id, got, want)
	}
	if got := at(e.fileFeedback(id).Anchor); got != want {
		e.t.Errorf("feedback %s in its file: anchor %+v, want %+v", id, got, want)
	}
}

// loginSpec is a spec with three anchored feedback: a on "Refresh tokens"
// (line 8), b on line 12, c on line 3.
func loginSpec(t *testing.T) (e *env, spec, a, b, c string) {
	e = newEnv(t)
	issue := e.issue("reviewer", store.IssueInput{})
	spec = e.spec("Login", store.SpecInput{Design: loginV1})
	a = e.feedback(issue, spec, 0, "Refresh tokens").ID
	b = e.feedback(issue, spec, 12, "").ID
	c = e.feedback(issue, spec, 3, "").ID
	e.wantAnchor(a, anchorAt{8, tracker.AnchorValid, "Tokens", "Refresh tokens", 8})
	e.wantAnchor(b, anchorAt{12, tracker.AnchorValid, "Errors", "Return 401 on expiry.", 12})
	e.wantAnchor(c, anchorAt{3, tracker.AnchorValid, "Login", "Intro text.", 3})
	return e, spec, a, b, c
}

// TestRelocateOnSpecUpdate: spec update --content that moves a section
// relocates the feedback on it, and feedback.jsonl says so.
func TestRelocateOnSpecUpdate(t *testing.T) {
	e, spec, a, b, c := loginSpec(t)
	if _, err := e.r.UpdateSpec(e.ctx, spec, store.SpecPatch{Content: new(loginV2)}); err != nil {
		t.Fatal(err)
	}
	e.wantAnchor(a, anchorAt{13, tracker.AnchorRelocated, "Tokens", "Refresh tokens", 8})
	e.wantAnchor(b, anchorAt{7, tracker.AnchorRelocated, "Errors", "Return 401 on expiry.", 12})
	e.wantAnchor(c, anchorAt{3, tracker.AnchorValid, "Login", "Intro text.", 3})
	loc := e.showFeedback(a).Location
	if loc == nil || loc.LineNumber != 13 || loc.LineText != "Refresh tokens last 30 days." || loc.SectionHeading == nil || *loc.SectionHeading != "Tokens" {
		t.Errorf("feedback a's location: %+v", loc)
	}
	if d, _ := e.r.ShowSpec(e.ctx, spec); d.Content != loginV2 {
		t.Errorf("spec content = %q", d.Content)
	}
	if body, _ := os.ReadFile(filepath.Join(e.dir, "specs", spec+".md")); string(body) != loginV2 {
		t.Errorf("spec file = %q", body)
	}

	// A change that leaves the body alone rewrites no feedback.
	before := e.snapshot()
	if _, err := e.r.UpdateSpec(e.ctx, spec, store.SpecPatch{Title: new("Login flow")}); err != nil {
		t.Fatal(err)
	}
	after := e.snapshot()
	if trackertest.KindFiles[tracker.Feedback](before) != trackertest.KindFiles[tracker.Feedback](after) {
		t.Errorf("a title change rewrote the feedback files")
	}
	e.next()
	if s := e.snapshot(); trackertest.KindFiles[tracker.Feedback](s) != trackertest.KindFiles[tracker.Feedback](after) {
		t.Errorf("opening again rewrote the feedback files")
	}

	// Deleting the anchored text makes the anchor stale, keeping its fields.
	v3 := strings.Replace(loginV2, "Refresh tokens last 30 days.\n", "", 1)
	if _, err := e.r.UpdateSpec(e.ctx, spec, store.SpecPatch{Content: &v3}); err != nil {
		t.Fatal(err)
	}
	e.wantAnchor(a, anchorAt{13, tracker.AnchorStale, "Tokens", "Refresh tokens", 8})
	if d := e.showFeedback(a); d.Location != nil {
		t.Errorf("a stale anchor has a location: %+v", d.Location)
	}
	e.wantStale(a)
}

func (e *env) wantStale(ids ...string) {
	e.t.Helper()
	l, err := e.r.ListFeedback(e.ctx, store.FeedbackFilter{Stale: true})
	if err != nil {
		e.t.Fatal(err)
	}
	got := []string{}
	for _, f := range l.Feedback {
		got = append(got, f.ID)
		if f.AnchorStatus != tracker.AnchorStale {
			e.t.Errorf("stale list holds %s with anchor %s", f.ID, f.AnchorStatus)
		}
	}
	if ids == nil {
		ids = []string{}
	}
	if !reflect.DeepEqual(got, ids) || l.Total != len(ids) {
		e.t.Errorf("stale feedback = %q (total %d), want %q", got, l.Total, ids)
	}
}

// TestRelocateOnHandEdit: an edit of the markdown file by hand is noticed
// by the next command, read-only or not, which relocates and rewrites
// feedback.jsonl; text deleted by hand makes anchors stale; a deleted file
// makes them all stale.
func TestRelocateOnHandEdit(t *testing.T) {
	e, spec, a, b, c := loginSpec(t)
	v := "Status: draft.\n\n" + loginV2
	e.writeBody(spec, v)
	before := e.snapshot()
	if got := at(e.fileFeedback(a).Anchor); got.Line != 8 {
		t.Fatalf("the feedback file changed before any command: %+v", got)
	}
	e.next() // e.g. `sudocode feedback list`
	if _, err := e.r.ListFeedback(e.ctx, store.FeedbackFilter{}); err != nil {
		t.Fatal(err)
	}
	after := e.snapshot()
	if trackertest.KindFiles[tracker.Feedback](before) == trackertest.KindFiles[tracker.Feedback](after) {
		t.Errorf("the next command did not rewrite the feedback files")
	}
	e.wantAnchor(a, anchorAt{15, tracker.AnchorRelocated, "Tokens", "Refresh tokens", 8})
	e.wantAnchor(b, anchorAt{9, tracker.AnchorRelocated, "Errors", "Return 401 on expiry.", 12})
	e.wantAnchor(c, anchorAt{5, tracker.AnchorRelocated, "Login", "Intro text.", 3})
	e.wantStale()

	// The command after that changes nothing more.
	e.next()
	sameSnapshot(t, "a second command after a hand edit", after, e.snapshot())

	// The same open tracker notices a hand edit at its next change.
	v = strings.Replace(v, "Return 401 on expiry.\n", "", 1)
	e.writeBody(spec, v)
	other := e.issue("another", store.IssueInput{})
	e.wantAnchor(b, anchorAt{9, tracker.AnchorStale, "Errors", "Return 401 on expiry.", 12})
	e.wantStale(b)
	if d := e.showFeedback(b); d.Location != nil {
		t.Errorf("stale anchor with a location: %+v", d.Location)
	}

	// Deleting the file: every anchor on it goes stale, the spec reads empty.
	if err := os.Remove(filepath.Join(e.dir, "specs", spec+".md")); err != nil {
		t.Fatal(err)
	}
	e.next()
	e.wantStale(a, b, c)
	if d, err := e.r.ShowSpec(e.ctx, spec); err != nil || d.Content != "" {
		t.Errorf("show of a spec without its file: %q, %v", d.Content, err)
	}
	_ = other
}

// TestRelocateByHand: relocate sets an anchor at a line by hand (status
// relocated, the original location kept), in feedback.jsonl too; a line
// past the end or an unknown id is refused without changing anything.
func TestRelocateByHand(t *testing.T) {
	e, spec, a, _, _ := loginSpec(t)
	v := strings.Replace(loginV1, "Refresh tokens last 30 days.\n", "", 1)
	if _, err := e.r.UpdateSpec(e.ctx, spec, store.SpecPatch{Content: &v}); err != nil {
		t.Fatal(err)
	}
	e.wantStale(a)
	f, err := e.r.RelocateFeedback(e.ctx, a, 7)
	if err != nil {
		t.Fatal(err)
	}
	want := anchorAt{7, tracker.AnchorRelocated, "Tokens", "Access tokens last 15 minutes.", 8}
	if got := at(f.Anchor); got != want {
		t.Errorf("relocate returned %+v, want %+v", got, want)
	}
	e.wantAnchor(a, want)
	if oh := e.fileFeedback(a).Anchor.OriginalLocation.SectionHeading; oh == nil || *oh != "Tokens" {
		t.Errorf("original location heading = %v", oh)
	}
	e.wantStale()
	if loc := e.showFeedback(a).Location; loc == nil || loc.LineText != "Access tokens last 15 minutes." {
		t.Errorf("location after relocate: %+v", loc)
	}

	before := e.snapshot()
	_, err = e.r.RelocateFeedback(e.ctx, a, 99)
	wantCode(t, "relocate past the end", err, fault.Invalid)
	if err != nil && !strings.Contains(err.Error(), "past the end") {
		t.Errorf("relocate past the end: %q", err)
	}
	_, err = e.r.RelocateFeedback(e.ctx, a, 0)
	wantCode(t, "relocate to line 0", err, fault.Invalid)
	_, err = e.r.RelocateFeedback(e.ctx, "tt-fb-nope", 3)
	wantCode(t, "relocate an unknown id", err, fault.NotFound)
	sameSnapshot(t, "refused relocations", before, e.snapshot())

	// A hand-relocated anchor survives later commands that leave the body alone.
	e.next()
	e.issue("later", store.IssueInput{})
	e.wantAnchor(a, want)
}

// TestFeedbackStatus: acknowledge, resolve and wont-fix, keeping the
// resolution given.
func TestFeedbackStatus(t *testing.T) {
	e, _, a, b, _ := loginSpec(t)
	f, err := e.r.SetFeedbackStatus(e.ctx, a, tracker.FeedbackAcknowledged, nil)
	if err != nil || f.Status != tracker.FeedbackAcknowledged || f.Resolution != nil {
		t.Errorf("acknowledge: %+v, %v", f, err)
	}
	f, err = e.r.SetFeedbackStatus(e.ctx, a, tracker.FeedbackResolved, new("clarified in v2"))
	if err != nil || f.Status != tracker.FeedbackResolved || f.Resolution == nil || *f.Resolution != "clarified in v2" {
		t.Errorf("resolve: %+v, %v", f, err)
	}
	f, err = e.r.SetFeedbackStatus(e.ctx, b, tracker.FeedbackWontFix, new("out of scope"))
	if err != nil || f.Status != tracker.FeedbackWontFix || *f.Resolution != "out of scope" {
		t.Errorf("wont-fix: %+v, %v", f, err)
	}
	if got := e.fileFeedback(a); got.Status != tracker.FeedbackResolved || *got.Resolution != "clarified in v2" || !got.UpdatedAt.After(got.CreatedAt) {
		t.Errorf("feedback.jsonl: %+v", got)
	}
	_, err = e.r.SetFeedbackStatus(e.ctx, "tt-fb-nope", tracker.FeedbackResolved, nil)
	wantCode(t, "resolve an unknown id", err, fault.NotFound)
	l, err := e.r.ListFeedback(e.ctx, store.FeedbackFilter{Status: "resolved"})
	if err != nil || l.Total != 1 || l.Feedback[0].ID != a {
		t.Errorf("list --status resolved: %+v, %v", l, err)
	}
}

// TestAddFeedbackRefusals: an anchor must be exactly one of a line in the
// spec or a text found in it; a refusal changes nothing.
func TestAddFeedbackRefusals(t *testing.T) {
	e, spec, _, _, _ := loginSpec(t)
	issue := e.issue("other", store.IssueInput{})
	before := e.snapshot()
	for _, c := range []struct {
		name string
		in   store.FeedbackInput
		code fault.Code
		msg  string
	}{
		{"line past the end", store.FeedbackInput{Line: new(13)}, fault.Invalid, "line 13 is past the end of the spec (12 lines)"},
		{"line 0", store.FeedbackInput{Line: new(0)}, fault.Invalid, "lines count from 1"},
		{"text not in the spec", store.FeedbackInput{Text: new("OAuth")}, fault.Invalid, `text "OAuth" is not in the spec`},
		{"empty text", store.FeedbackInput{Text: new("  ")}, fault.Invalid, "empty"},
		{"both", store.FeedbackInput{Line: new(3), Text: new("Intro")}, fault.Invalid, "exactly one anchor"},
		{"neither", store.FeedbackInput{}, fault.Invalid, "exactly one anchor"},
		{"empty content", store.FeedbackInput{Line: new(3), Content: " "}, fault.Invalid, "content must not be empty"},
		{"bad type", store.FeedbackInput{Line: new(3), Type: "rant"}, fault.Invalid, `invalid feedback type "rant"`},
		{"unknown issue", store.FeedbackInput{Line: new(3), IssueID: "tt-zzzz"}, fault.NotFound, "issue tt-zzzz not found"},
		{"unknown spec", store.FeedbackInput{Line: new(3), SpecID: "tt-spec-zzzz"}, fault.NotFound, "spec tt-spec-zzzz not found"},
		{"a spec id as the issue", store.FeedbackInput{Line: new(3), IssueID: spec}, fault.NotFound, "not found"},
	} {
		in := c.in
		if in.IssueID == "" {
			in.IssueID = issue
		}
		if in.SpecID == "" {
			in.SpecID = spec
		}
		if in.Content == "" {
			in.Content = "a note"
		}
		_, err := e.r.AddFeedback(e.ctx, in)
		wantCode(t, c.name, err, c.code)
		if err != nil && !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %q, want it to say %q", c.name, err, c.msg)
		}
	}
	sameSnapshot(t, "refused feedback", before, e.snapshot())
}
