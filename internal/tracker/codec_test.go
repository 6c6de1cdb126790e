package tracker_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

func TestParseErrorsNameTheLine(t *testing.T) {
	const a = `{"id":"sudocode-aaaa","uuid":"u-1","title":"A"}`
	const b = `{"id":"sudocode-bbbb","uuid":"u-2","title":"B"}`
	for _, c := range []struct {
		name, data, want string
	}{
		{"bad JSON", a + "\n" + b + "\n{\"id\": \n", "issues.jsonl line 3: "},
		{"truncated object", a + "\n\n\n" + `{"id":"x","uuid":"u-3"`, "issues.jsonl line 4: "},
		{"not an object", a + "\n[1,2]\n", "issues.jsonl line 2: not a JSON object"},
		{"null line", "null\n", "issues.jsonl line 1: not a JSON object"},
		{"two objects on a line", a + " " + b + "\n", "issues.jsonl line 1: unexpected data after the JSON object"},
		{"unknown key", `{"id":"a","uuid":"u","colour":"red"}`, `issues.jsonl line 1: json: unknown field "colour"`},
		{"wrong type", `{"id":"a","uuid":"u","priority":"high"}`, "issues.jsonl line 1: json: cannot unmarshal"},
		{"bad time", `{"id":"a","uuid":"u","created_at":"yesterday"}`, "issues.jsonl line 1: "},
		{"missing id", `{"uuid":"u"}`, `issues.jsonl line 1: missing "id"`},
		{"missing uuid", `{"id":"a"}`, `issues.jsonl line 1: missing "uuid"`},
		{"duplicate id", a + "\n" + b + "\n" + `{"id":"sudocode-aaaa","uuid":"u-9"}`, `issues.jsonl line 3: duplicate id "sudocode-aaaa" (also on line 1)`},
		{"duplicate uuid", a + "\n" + `{"id":"sudocode-cccc","uuid":"u-1"}`, `issues.jsonl line 2: duplicate uuid "u-1" (also on line 1)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs, err := tracker.ParseIssues([]byte(c.data), nil)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("err = %v, want prefix %q", err, c.want)
			}
			if recs != nil {
				t.Errorf("partial result %v", recs)
			}
		})
	}
	if _, err := tracker.ParseFeedback([]byte(`{"id":"fb-1"}`+"\n"+`{"id":"fb-1"}`), nil); err == nil ||
		!strings.HasPrefix(err.Error(), `feedback.jsonl line 2: duplicate id "fb-1"`) {
		t.Errorf("feedback duplicate: err = %v", err)
	}
	if _, err := tracker.ParseSpecs([]byte("\n\n{oops}"), nil); err == nil || !strings.HasPrefix(err.Error(), "specs.jsonl line 3: ") {
		t.Errorf("spec bad line: err = %v", err)
	}
}

func TestParseAccepts(t *testing.T) {
	// Blank and whitespace-only lines, CRLF endings, a BOM, no trailing
	// newline, null lists.
	data := "\xef\xbb\xbf" + `{"id":"b","uuid":"u-2","tags":null,"relationships":null}` + "\r\n  \n\n" +
		`{"id":"a","uuid":"u-1","tags":["t"]}`
	recs, err := tracker.ParseIssues([]byte(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != "b" || recs[1].ID != "a" || recs[1].Tags[0] != "t" {
		t.Fatalf("parsed %+v", recs)
	}
	if recs, err := tracker.ParseFeedback(nil, nil); err != nil || len(recs) != 0 {
		t.Errorf("empty file: %v %v", recs, err)
	}
}

func TestCanonicalEncoding(t *testing.T) {
	est := 30
	b := tracker.IssueRecord{Issue: tracker.Issue{
		ID: "sudocode-b", UUID: "u-b", Title: "<b> & \"quotes\"", Description: "line1\nline2",
		Status: tracker.IssueClosed, Type: "bug", Priority: 0, Assignee: new("bob"), Estimate: &est,
		ParentID: new("sudocode-a"), Tags: []string{"zeta", "alpha", "zeta", "mid"},
		CreatedAt: time.Date(2025, 3, 1, 13, 0, 0, 0, time.FixedZone("CET", 3600)),
		UpdatedAt: t0.Add(time.Hour), ClosedAt: new(t0.Add(2 * time.Hour)), CloseReason: new("Completed"),
		CreatedBy: "alice",
	}, Relationships: []tracker.Relationship{
		rel("sudocode-b", "sudocode-c", tracker.RelRelated, 0, "x"),
		rel("sudocode-b", "sudocode-a", tracker.RelRelated, 0, "x"),
		rel("sudocode-b", "sudocode-a", tracker.RelBlocks, 5, "late"),
		rel("sudocode-b", "sudocode-a", tracker.RelBlocks, 1, "early"), // same key: the earlier is kept
	}}
	a := issue("sudocode-a", "u-a", "A", 0) // nil tags and relationships
	in := []tracker.IssueRecord{b, a}
	snapshot := append([]string(nil), b.Tags...)

	got := string(encodeIssues(t, in))
	want := `{"id":"sudocode-a","uuid":"u-a","title":"A","description":"","status":"open","type":"task","priority":2,"assignee":null,"estimate":null,"parent_id":null,"tags":[],"created_at":"2025-03-01T12:00:00Z","updated_at":"2025-03-01T12:00:00Z","closed_at":null,"close_reason":null,"created_by":"alice","relationships":[]}
{"id":"sudocode-b","uuid":"u-b","title":"<b> & \"quotes\"","description":"line1\nline2","status":"closed","type":"bug","priority":0,"assignee":"bob","estimate":30,"parent_id":"sudocode-a","tags":["alpha","mid","zeta"],"created_at":"2025-03-01T12:00:00Z","updated_at":"2025-03-01T13:00:00Z","closed_at":"2025-03-01T14:00:00Z","close_reason":"Completed","created_by":"alice","relationships":[{"from":"sudocode-b","from_type":"issue","to":"sudocode-a","to_type":"issue","type":"blocks","created_at":"2025-03-01T12:01:00Z","created_by":"early"},{"from":"sudocode-b","from_type":"issue","to":"sudocode-a","to_type":"issue","type":"related","created_at":"2025-03-01T12:00:00Z","created_by":"x"},{"from":"sudocode-b","from_type":"issue","to":"sudocode-c","to_type":"issue","type":"related","created_at":"2025-03-01T12:00:00Z","created_by":"x"}]}
`
	if got != want {
		t.Errorf("canonical encoding differs at %s", diffLines([]byte(got), []byte(want)))
	}
	if !reflect.DeepEqual(in[0].Tags, snapshot) || in[1].Tags != nil {
		t.Error("EncodeIssues modified its input")
	}
	// Canonical is a fixed point of parse+encode, whatever the input order.
	recs, err := tracker.ParseIssues([]byte(got), nil)
	if err != nil {
		t.Fatal(err)
	}
	if again := string(encodeIssues(t, recs)); again != got {
		t.Errorf("re-encoding changed the file at %s", diffLines([]byte(again), []byte(got)))
	}
	if len(encodeIssues(t, nil)) != 0 {
		t.Error("no records should encode as an empty file")
	}

	spec := tracker.SpecRecord{Spec: tracker.Spec{ID: "sudocode-spec-a", UUID: "u", Title: "S", Type: "api",
		Status: tracker.SpecDraft, FilePath: "specs/sudocode-spec-a.md", CreatedAt: t0, UpdatedAt: t0}}
	wantSpec := `{"id":"sudocode-spec-a","uuid":"u","title":"S","description":null,"type":"api","status":"draft","priority":0,"file_path":"specs/sudocode-spec-a.md","parent_id":null,"tags":[],"created_at":"2025-03-01T12:00:00Z","updated_at":"2025-03-01T12:00:00Z","created_by":"","relationships":[]}` + "\n"
	if got := string(encodeSpecs(t, []tracker.SpecRecord{spec})); got != wantSpec {
		t.Errorf("spec encoding:\n got %s\nwant %s", got, wantSpec)
	}

	fb := feedback("fb-1", "a <b>", 0)
	wantFb := `{"id":"fb-1","issue_id":"sudocode-aaaa","spec_id":"sudocode-spec-aaaa","type":"question","status":"open","content":"a <b>","agent":"claude","anchor":{"section_heading":"Intro","section_level":2,"line_number":3,"line_offset":1,"text_snippet":"some text","context_before":"","context_after":"","content_hash":"0123456789abcdef","anchor_status":"valid","last_verified_at":"2025-03-01T12:00:00Z","original_location":{"line_number":3,"section_heading":"Intro"}},"resolution":null,"created_at":"2025-03-01T12:00:00Z","updated_at":"2025-03-01T12:00:00Z"}` + "\n"
	if got := string(encodeFeedback(t, []tracker.Feedback{fb})); got != wantFb {
		t.Errorf("feedback encoding:\n got %s\nwant %s", got, wantFb)
	}
}

func TestEncodeIsOrderIndependent(t *testing.T) {
	recs := []tracker.IssueRecord{
		issue("c", "u-c", "C", 0), issue("a", "u-a", "A", 0), issue("b", "u-b", "B", 0),
	}
	first := encodeIssues(t, recs)
	recs[0], recs[2] = recs[2], recs[0]
	if !bytes.Equal(first, encodeIssues(t, recs)) {
		t.Error("encoding depends on input order")
	}
	if !bytes.HasSuffix(first, []byte("\n")) || bytes.Count(first, []byte("\n")) != 3 {
		t.Errorf("want three lines with a trailing newline, got %q", first)
	}
}

// TestFilesRoundTripByteForByte: files as the tracker wrote them (testdata/,
// made by the tracker before its codec moved here: HTML characters, unicode,
// nested pointers, relocated anchors, times with trailing zeros cut) come
// out of parse and encode with the very same bytes.
func TestFilesRoundTripByteForByte(t *testing.T) {
	for _, c := range []struct {
		file  string
		trip  func([]byte) ([]byte, int, error)
		lines int
	}{
		{tracker.IssuesFile, roundTrip(tracker.ParseIssues, tracker.EncodeIssues), 3},
		{tracker.SpecsFile, roundTrip(tracker.ParseSpecs, tracker.EncodeSpecs), 2},
		{tracker.FeedbackFile, roundTrip(tracker.ParseFeedback, tracker.EncodeFeedback), 2},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, n, err := c.trip(data)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if n != c.lines {
			t.Errorf("%s: %d records, want %d", c.file, n, c.lines)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s changed in a round trip at %s", c.file, diffLines(got, data))
		}
	}
}

func roundTrip[T any](parse func([]byte, func(*T) error) ([]T, error), encode func([]T) ([]byte, error)) func([]byte) ([]byte, int, error) {
	return func(data []byte) ([]byte, int, error) {
		recs, err := parse(data, nil)
		if err != nil {
			return nil, 0, err
		}
		out, err := encode(recs)
		return out, len(recs), err
	}
}

// TestParseCheckNamesTheLine: a caller's check (the store's validation) is
// run on every record and its refusal names the line, as a LineError.
func TestParseCheckNamesTheLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", tracker.IssuesFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tracker.ParseIssues(data, (*tracker.IssueRecord).Validate); err != nil {
		t.Fatalf("valid file refused: %v", err)
	}
	bad := bytes.Replace(data, []byte(`"status":"in_progress"`), []byte(`"status":"doing"`), 1)
	_, err = tracker.ParseIssues(bad, (*tracker.IssueRecord).Validate)
	var le *tracker.LineError
	if !errors.As(err, &le) || le.File != tracker.IssuesFile || le.Line != 2 || le.Err.Error() != `invalid status "doing"` {
		t.Errorf("err = %v, want issues.jsonl line 2: invalid status \"doing\"", err)
	}
}

// TestNormalizeTags: the one normalisation of tags, on input and in files.
func TestNormalizeTags(t *testing.T) {
	in := []string{" web", "auth", "", "web", "  ", "é"}
	got := tracker.NormalizeTags(in)
	if want := []string{"auth", "web", "é"}; !reflect.DeepEqual(got, want) {
		t.Errorf("NormalizeTags = %q, want %q", got, want)
	}
	if in[0] != " web" {
		t.Error("NormalizeTags modified its input")
	}
	if got := tracker.NormalizeTags(nil); got == nil || len(got) != 0 {
		t.Errorf("NormalizeTags(nil) = %#v, want []", got)
	}
}

// The records and times the tests are made of (trackertest).
var (
	t0        = trackertest.T0
	issue     = trackertest.Issue
	rel       = trackertest.Rel
	feedback  = trackertest.Feedback
	diffLines = trackertest.DiffLines
)

func encodeIssues(t *testing.T, recs []tracker.IssueRecord) []byte {
	t.Helper()
	return mustEncode(t)(tracker.EncodeIssues(recs))
}

func encodeSpecs(t *testing.T, recs []tracker.SpecRecord) []byte {
	t.Helper()
	return mustEncode(t)(tracker.EncodeSpecs(recs))
}

func encodeFeedback(t *testing.T, recs []tracker.Feedback) []byte {
	t.Helper()
	return mustEncode(t)(tracker.EncodeFeedback(recs))
}

func mustEncode(t *testing.T) func([]byte, error) []byte {
	return func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}
