package merge

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// driverEnv makes the test binary act as the git merge driver
// (`<test binary> %O %A %B %P`), as `sudocode merge-driver` would.
const driverEnv = "SUDOCODE_MERGE_TEST_DRIVER"

func TestMain(m *testing.M) {
	if os.Getenv(driverEnv) == "1" {
		os.Exit(driverMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// driverMain is Driver run by git, as `sudocode merge-driver` runs it.
func driverMain(args []string) int {
	if len(args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: driver BASE OURS THEIRS PATH")
		return 2
	}
	renames, err := Driver(args[0], args[1], args[2], args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, r := range renames {
		fmt.Fprintf(os.Stderr, "%s: renamed %s to %s (uuid %s)\n", args[3], r.Old, r.New, r.UUID)
	}
	return 0
}

// The records and times the tests are made of (trackertest).
var (
	t0        = trackertest.T0
	at        = trackertest.At
	issue     = trackertest.Issue
	rel       = trackertest.Rel
	feedback  = trackertest.Feedback
	diffLines = trackertest.DiffLines
)

// encodeIssues, encodeSpecs and encodeFeedback are the canonical files of
// records, for expected results.
func encodeIssues(recs []tracker.IssueRecord) []byte { return must(tracker.EncodeIssues(recs)) }
func encodeSpecs(recs []tracker.SpecRecord) []byte   { return must(tracker.EncodeSpecs(recs)) }
func encodeFeedback(recs []tracker.Feedback) []byte  { return must(tracker.EncodeFeedback(recs)) }

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// jsonl marshals records one per line as they are (not canonically: nil
// lists stay null, input order is kept).
func jsonl[T any](recs ...T) []byte {
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			panic(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// with returns r changed by f (a copy: slices are copied first).
func with(r tracker.IssueRecord, f func(*tracker.IssueRecord)) tracker.IssueRecord {
	r.Tags = append([]string(nil), r.Tags...)
	r.Relationships = append([]tracker.Relationship(nil), r.Relationships...)
	f(&r)
	return r
}
