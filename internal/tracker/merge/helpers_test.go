package merge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
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

// driverMain merges %A in place from %O, %A, %B; %P names the kind. On any
// error it leaves %A untouched and fails, so git reports a conflict.
func driverMain(args []string) int {
	if len(args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: driver BASE OURS THEIRS PATH")
		return 2
	}
	kind, err := KindOf(args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var in [3][]byte
	for i := range in {
		if in[i], err = os.ReadFile(args[i]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	out, renames, err := ThreeWay(kind, in[0], in[1], in[2])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", args[3], err)
		return 1
	}
	for _, r := range renames {
		fmt.Fprintf(os.Stderr, "%s: renamed %s to %s (uuid %s)\n", args[3], r.Old, r.New, r.UUID)
	}
	tmp := args[1] + ".tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Rename(tmp, filepath.Clean(args[1])); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// at is t0 plus n minutes.
func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

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

// issue is a small valid issue record, updated at minute upd.
func issue(id, uuid, title string, upd int) tracker.IssueRecord {
	return tracker.IssueRecord{Issue: tracker.Issue{
		ID: id, UUID: uuid, Title: title, Status: tracker.IssueOpen, Type: "task",
		Priority: 2, CreatedAt: t0, UpdatedAt: at(upd), CreatedBy: "alice",
	}}
}

func rel(from, to string, typ tracker.RelType, created int, by string) tracker.Relationship {
	return tracker.Relationship{From: from, FromType: tracker.KindIssue, To: to, ToType: tracker.KindIssue,
		Type: typ, CreatedAt: at(created), CreatedBy: by}
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

// diffLines reports the first differing line of two JSONL outputs.
func diffLines(got, want []byte) string {
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
