package merge

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
)

func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		path string
		want tracker.RecordKind
		ok   bool
	}{
		{".sudocode/records/issues/3f.jsonl", tracker.IssueRecords, true},
		{"records/specs/00.jsonl", tracker.SpecRecords, true},
		{`C:\repo\.sudocode\records\feedback\1a.jsonl`, tracker.FeedbackRecords, true},
		{"issues.jsonl", tracker.IssueRecords, true},
		{".sudocode/issues.jsonl", tracker.IssueRecords, true},
		{"/repo/.sudocode/specs.jsonl", tracker.SpecRecords, true},
		{"a/b/feedback.jsonl", tracker.FeedbackRecords, true},
		{".sudocode/records/activity/07.jsonl", tracker.ActivityRecords, true},
		{"activity.jsonl", 0, false},
		{"records/activity/7.jsonl", 0, false},
		{"records/issues/100.jsonl", 0, false},
		{"records/notes/3f.jsonl", 0, false},
		{"issues/3f.jsonl", 0, false},
		{"issues.json", 0, false},
		{"Issues.jsonl", 0, false},
		{".sudocode/config.json", 0, false},
	} {
		got, err := KindOf(c.path)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("KindOf(%q) = %v, %v; want %v, ok=%v", c.path, got, err, c.want, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "records/<issues|specs|feedback|activity>/<00-ff>.jsonl") {
			t.Errorf("KindOf(%q): the error does not name the shard layout: %v", c.path, err)
		}
	}
}

func TestThreeWayIssues(t *testing.T) {
	const (
		ua = "aaaaaaaa-0000-4000-8000-000000000001"
		ub = "bbbbbbbb-0000-4000-8000-000000000002"
		uc = "cccccccc-0000-4000-8000-000000000003"
		// two issues both branches created with the same short id
		ux = "0a0a0a0a-0000-4000-8000-000000000004"
		uy = "c3d4e5f6-0000-4000-8000-000000000005"
		uz = "dddddddd-0000-4000-8000-000000000006"
	)
	A := issue("sudocode-aaaa", ua, "A", 0)
	A.Tags = []string{"x", "y"}
	B := issue("sudocode-bbbb", ub, "B", 0)
	C := issue("sudocode-cccc", uc, "C", 0)
	cToB := with(C, func(r *tracker.IssueRecord) {
		r.Relationships = []tracker.Relationship{rel(C.ID, B.ID, tracker.RelBlocks, 0, "alice")}
	})
	cToX := with(C, func(r *tracker.IssueRecord) {
		r.ParentID = new("sudocode-x1y2")
		r.Relationships = []tracker.Relationship{rel(C.ID, "sudocode-x1y2", tracker.RelBlocks, 0, "alice")}
	})

	type issues = []tracker.IssueRecord
	cases := []struct {
		name               string
		base, ours, theirs issues
		want               issues
		renames            []Rename
	}{
		{
			name: "both add different issues: union",
			base: issues{A}, ours: issues{A, B}, theirs: issues{A, C},
			want: issues{A, B, C},
		},
		{
			name: "both add the same issue (no base record): merged once",
			base: nil,
			ours: issues{with(B, func(r *tracker.IssueRecord) { r.Tags = []string{"o"}; r.UpdatedAt = at(1) })},
			theirs: issues{with(B, func(r *tracker.IssueRecord) {
				r.Title = "B theirs"
				r.Tags = []string{"t"}
				r.UpdatedAt = at(2)
			})},
			want: issues{with(B, func(r *tracker.IssueRecord) {
				r.Title = "B theirs"
				r.Tags = []string{"o", "t"}
				r.UpdatedAt = at(2)
			})},
		},
		{
			name: "both edit different fields: both edits kept, tags united, later updated_at",
			base: issues{A},
			ours: issues{with(A, func(r *tracker.IssueRecord) {
				r.Title = "A ours"
				r.Tags = append(r.Tags, "ours")
				r.UpdatedAt = at(5)
			})},
			theirs: issues{with(A, func(r *tracker.IssueRecord) {
				r.Priority = 0
				r.Assignee = new("bob")
				r.Tags = append(r.Tags, "theirs")
				r.UpdatedAt = at(9)
			})},
			want: issues{with(A, func(r *tracker.IssueRecord) {
				r.Title = "A ours"
				r.Priority = 0
				r.Assignee = new("bob")
				r.Tags = []string{"ours", "theirs", "x", "y"}
				r.UpdatedAt = at(9)
			})},
		},
		{
			name: "both edit the same field: the later updated_at wins (theirs later)",
			base: issues{A},
			ours: issues{with(A, func(r *tracker.IssueRecord) {
				r.Title, r.Priority, r.UpdatedAt = "A ours", 1, at(5)
			})},
			theirs: issues{with(A, func(r *tracker.IssueRecord) {
				r.Title, r.Priority, r.UpdatedAt = "A theirs", 3, at(9)
			})},
			want: issues{with(A, func(r *tracker.IssueRecord) {
				r.Title, r.Priority, r.UpdatedAt = "A theirs", 3, at(9)
			})},
		},
		{
			name: "both edit the same field: the later updated_at wins (ours later)",
			base: issues{A},
			ours: issues{with(A, func(r *tracker.IssueRecord) {
				r.Title, r.UpdatedAt = "A ours", at(9)
			})},
			theirs: issues{with(A, func(r *tracker.IssueRecord) {
				r.Title, r.UpdatedAt = "A theirs", at(5)
			})},
			want: issues{with(A, func(r *tracker.IssueRecord) {
				r.Title, r.UpdatedAt = "A ours", at(9)
			})},
		},
		{
			name: "both edit the same field at the same updated_at: ours",
			base: issues{A},
			ours: issues{with(A, func(r *tracker.IssueRecord) {
				r.Title, r.UpdatedAt = "A ours", at(7)
			})},
			theirs: issues{with(A, func(r *tracker.IssueRecord) {
				r.Title, r.UpdatedAt = "A theirs", at(7)
			})},
			want: issues{with(A, func(r *tracker.IssueRecord) {
				r.Title, r.UpdatedAt = "A ours", at(7)
			})},
		},
		{
			name: "status, closed_at and close_reason move together",
			base: issues{A},
			ours: issues{with(A, func(r *tracker.IssueRecord) {
				r.Status, r.ClosedAt, r.CloseReason, r.UpdatedAt = tracker.IssueClosed, new(at(5)), new("Completed"), at(5)
			})},
			theirs: issues{with(A, func(r *tracker.IssueRecord) {
				r.Status, r.Title, r.UpdatedAt = tracker.IssueInProgress, "A theirs", at(9)
			})},
			want: issues{with(A, func(r *tracker.IssueRecord) {
				r.Status, r.Title, r.UpdatedAt = tracker.IssueInProgress, "A theirs", at(9)
			})},
		},
		{
			name: "a tag removed on one side stays removed; additions kept",
			base: issues{A},
			ours: issues{with(A, func(r *tracker.IssueRecord) { r.Tags = []string{"x"}; r.UpdatedAt = at(3) })},
			theirs: issues{with(A, func(r *tracker.IssueRecord) {
				r.Tags = []string{"x", "y", "z"}
				r.UpdatedAt = at(4)
			})},
			want: issues{with(A, func(r *tracker.IssueRecord) { r.Tags = []string{"x", "z"}; r.UpdatedAt = at(4) })},
		},
		{
			name: "ours deletes, theirs unchanged: deleted",
			base: issues{A, B}, ours: issues{A}, theirs: issues{A, B},
			want: issues{A},
		},
		{
			name: "theirs deletes, ours unchanged: deleted",
			base: issues{A, B}, ours: issues{A, B}, theirs: issues{B},
			want: issues{B},
		},
		{
			name: "ours deletes, theirs edits: kept as edited",
			base: issues{A, B}, ours: issues{A},
			theirs: issues{A, with(B, func(r *tracker.IssueRecord) { r.Title = "B edited"; r.UpdatedAt = at(3) })},
			want:   issues{A, with(B, func(r *tracker.IssueRecord) { r.Title = "B edited"; r.UpdatedAt = at(3) })},
		},
		{
			name:   "theirs deletes, ours edits: kept as edited",
			base:   issues{A, B},
			ours:   issues{A, with(B, func(r *tracker.IssueRecord) { r.Tags = []string{"new"}; r.UpdatedAt = at(3) })},
			theirs: issues{A},
			want:   issues{A, with(B, func(r *tracker.IssueRecord) { r.Tags = []string{"new"}; r.UpdatedAt = at(3) })},
		},
		{
			name: "both delete: deleted",
			base: issues{A, B}, ours: issues{A}, theirs: issues{A},
			want: issues{A},
		},
		{
			name: "both add the same relationship: once, the earlier created_at",
			base: issues{A, B},
			ours: issues{with(A, func(r *tracker.IssueRecord) {
				r.Relationships = []tracker.Relationship{rel(A.ID, B.ID, tracker.RelBlocks, 8, "ours")}
				r.UpdatedAt = at(8)
			}), B},
			theirs: issues{with(A, func(r *tracker.IssueRecord) {
				r.Relationships = []tracker.Relationship{
					rel(A.ID, B.ID, tracker.RelRelated, 6, "theirs"),
					rel(A.ID, B.ID, tracker.RelBlocks, 6, "theirs"),
				}
				r.UpdatedAt = at(6)
			}), B},
			want: issues{with(A, func(r *tracker.IssueRecord) {
				r.Relationships = []tracker.Relationship{
					rel(A.ID, B.ID, tracker.RelBlocks, 6, "theirs"),
					rel(A.ID, B.ID, tracker.RelRelated, 6, "theirs"),
				}
				r.UpdatedAt = at(8)
			}), B},
		},
		{
			name: "a relationship removed on one side stays removed",
			base: issues{with(A, func(r *tracker.IssueRecord) {
				r.Relationships = []tracker.Relationship{rel(A.ID, B.ID, tracker.RelBlocks, 0, "alice")}
			}), B, C},
			ours: issues{with(A, func(r *tracker.IssueRecord) { r.Relationships = nil; r.UpdatedAt = at(2) }), B, C},
			theirs: issues{with(A, func(r *tracker.IssueRecord) {
				r.Relationships = []tracker.Relationship{
					rel(A.ID, B.ID, tracker.RelBlocks, 0, "alice"),
					rel(A.ID, C.ID, tracker.RelDependsOn, 3, "bob"),
				}
				r.UpdatedAt = at(3)
			}), B, C},
			want: issues{with(A, func(r *tracker.IssueRecord) {
				r.Relationships = []tracker.Relationship{rel(A.ID, C.ID, tracker.RelDependsOn, 3, "bob")}
				r.UpdatedAt = at(3)
			}), B, C},
		},
		{
			name: "id collision: theirs renamed, its references rewritten, ours untouched",
			base: issues{A},
			ours: issues{
				with(A, func(r *tracker.IssueRecord) {
					r.Relationships = []tracker.Relationship{rel(A.ID, "sudocode-x1y2", tracker.RelRelated, 1, "ours")}
					r.UpdatedAt = at(1)
				}),
				issue("sudocode-x1y2", ux, "X ours", 1),
			},
			theirs: issues{
				with(A, func(r *tracker.IssueRecord) {
					r.Relationships = []tracker.Relationship{rel(A.ID, "sudocode-x1y2", tracker.RelDependsOn, 2, "theirs")}
					r.UpdatedAt = at(2)
				}),
				issue("sudocode-x1y2", uy, "Y theirs", 2),
				with(issue("sudocode-zzzz", uz, "Z theirs", 2), func(r *tracker.IssueRecord) {
					r.ParentID = new("sudocode-x1y2")
					r.Relationships = []tracker.Relationship{
						rel("sudocode-zzzz", "sudocode-x1y2", tracker.RelBlocks, 2, "theirs"),
						rel("sudocode-zzzz", A.ID, tracker.RelRelated, 2, "theirs"),
					}
				}),
			},
			want: issues{
				with(A, func(r *tracker.IssueRecord) {
					r.Relationships = []tracker.Relationship{
						rel(A.ID, "sudocode-x1y2", tracker.RelRelated, 1, "ours"),
						rel(A.ID, "sudocode-x1y2c", tracker.RelDependsOn, 2, "theirs"),
					}
					r.UpdatedAt = at(2)
				}),
				issue("sudocode-x1y2", ux, "X ours", 1),
				issue("sudocode-x1y2c", uy, "Y theirs", 2),
				with(issue("sudocode-zzzz", uz, "Z theirs", 2), func(r *tracker.IssueRecord) {
					r.ParentID = new("sudocode-x1y2c")
					r.Relationships = []tracker.Relationship{
						rel("sudocode-zzzz", "sudocode-x1y2c", tracker.RelBlocks, 2, "theirs"),
						rel("sudocode-zzzz", A.ID, tracker.RelRelated, 2, "theirs"),
					}
				}),
			},
			renames: []Rename{{Old: "sudocode-x1y2", New: "sudocode-x1y2c", UUID: uy}},
		},
		{
			// The base's dangling link to sudocode-x1y2 named neither new
			// record: it is not rewritten, whichever side is theirs.
			name:    "id collision: references inherited from the base are not rewritten",
			base:    issues{cToX},
			ours:    issues{cToX, issue("sudocode-x1y2", ux, "X ours", 1)},
			theirs:  issues{cToX, issue("sudocode-x1y2", uy, "Y theirs", 2)},
			want:    issues{cToX, issue("sudocode-x1y2", ux, "X ours", 1), issue("sudocode-x1y2c", uy, "Y theirs", 2)},
			renames: []Rename{{Old: "sudocode-x1y2", New: "sudocode-x1y2c", UUID: uy}},
		},
		{
			name:   "id collision: the appended id is taken too, so one more character",
			base:   nil,
			ours:   issues{issue("sudocode-x1y2", ux, "X ours", 1), issue("sudocode-x1y2c", ua, "taken", 1)},
			theirs: issues{issue("sudocode-x1y2", uy, "Y theirs", 2)},
			want: issues{
				issue("sudocode-x1y2", ux, "X ours", 1),
				issue("sudocode-x1y2c", ua, "taken", 1),
				issue("sudocode-x1y2c3", uy, "Y theirs", 2),
			},
			renames: []Rename{{Old: "sudocode-x1y2", New: "sudocode-x1y2c3", UUID: uy}},
		},
		{
			// C's link to B, inherited from the base, meant B: it follows
			// B's rename.
			name:   "id reused by ours after a deletion that theirs' edit overrides",
			base:   issues{B, cToB},
			ours:   issues{issue("sudocode-bbbb", ux, "new B ours", 4), cToB},
			theirs: issues{with(B, func(r *tracker.IssueRecord) { r.Title = "B edited"; r.UpdatedAt = at(3) }), cToB},
			want: issues{
				issue("sudocode-bbbb", ux, "new B ours", 4),
				with(B, func(r *tracker.IssueRecord) { r.ID = "sudocode-bbbbb"; r.Title = "B edited"; r.UpdatedAt = at(3) }),
				with(cToB, func(r *tracker.IssueRecord) { r.Relationships[0].To = "sudocode-bbbbb" }),
			},
			renames: []Rename{{Old: "sudocode-bbbb", New: "sudocode-bbbbb", UUID: ub}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, renames, err := ThreeWay(tracker.IssueRecords, jsonl(c.base...), jsonl(c.ours...), jsonl(c.theirs...))
			if err != nil {
				t.Fatal(err)
			}
			if want := encodeIssues(c.want); !bytes.Equal(got, want) {
				t.Errorf("merged file differs at %s\ngot:\n%s", diffLines(got, want), got)
			}
			if !reflect.DeepEqual(renames, c.renames) {
				t.Errorf("renames = %+v, want %+v", renames, c.renames)
			}
			// Merging is idempotent: merging the result with itself over
			// the same base gives the result again.
			again, _, err := ThreeWay(tracker.IssueRecords, jsonl(c.base...), got, got)
			if err != nil || !bytes.Equal(again, got) {
				t.Errorf("re-merge of the result changed it (%v):\n%s", err, diffLines(again, got))
			}
		})
	}
}

func TestThreeWaySpecs(t *testing.T) {
	spec := func(id, uuid, title string, upd int) tracker.SpecRecord {
		return tracker.SpecRecord{Spec: tracker.Spec{
			ID: id, UUID: uuid, Title: title, Type: "feature", Status: tracker.SpecDraft, Priority: 2,
			FilePath: "specs/" + id + ".md", CreatedAt: t0, UpdatedAt: at(upd), CreatedBy: "alice",
		}}
	}
	base := spec("sudocode-spec-aaaa", "aaaaaaaa-1111-4111-8111-111111111111", "S", 0)
	ours := base
	ours.Status, ours.UpdatedAt = tracker.SpecApproved, at(3)
	theirs := base
	theirs.Description, theirs.Tags, theirs.UpdatedAt = new("body summary"), []string{"api"}, at(2)
	newOurs := spec("sudocode-spec-bbbb", "01010101-1111-4111-8111-111111111111", "new ours", 1)
	newTheirs := spec("sudocode-spec-bbbb", "f2f2f2f2-1111-4111-8111-111111111111", "new theirs", 1)
	newTheirs.Relationships = []tracker.Relationship{{
		From: "sudocode-spec-bbbb", FromType: tracker.KindSpec, To: base.ID, ToType: tracker.KindSpec,
		Type: tracker.RelReferences, CreatedAt: at(1), CreatedBy: "bob",
	}}

	got, renames, err := ThreeWay(tracker.SpecRecords, jsonl(base), jsonl(ours, newOurs), jsonl(theirs, newTheirs))
	if err != nil {
		t.Fatal(err)
	}
	wantS := base
	wantS.Status, wantS.Description, wantS.Tags, wantS.UpdatedAt = tracker.SpecApproved, new("body summary"), []string{"api"}, at(3)
	renamed := newTheirs
	renamed.ID = "sudocode-spec-bbbbf"
	renamed.Relationships = []tracker.Relationship{newTheirs.Relationships[0]}
	renamed.Relationships[0].From = renamed.ID
	// file_path is left alone: the body file is the caller's business.
	want := encodeSpecs([]tracker.SpecRecord{wantS, newOurs, renamed})
	if !bytes.Equal(got, want) {
		t.Errorf("merged specs differ at %s", diffLines(got, want))
	}
	if len(renames) != 1 || renames[0] != (Rename{"sudocode-spec-bbbb", "sudocode-spec-bbbbf", newTheirs.UUID}) {
		t.Errorf("renames = %+v", renames)
	}
}

func TestThreeWayFeedback(t *testing.T) {
	f1, f2, f3, f4 := feedback("fb-1", "one", 0), feedback("fb-2", "two", 0), feedback("fb-3", "three", 1), feedback("fb-4", "four", 1)
	o1 := f1
	o1.Status, o1.Resolution, o1.UpdatedAt = tracker.FeedbackResolved, new("done"), at(5)
	t1 := f1
	t1.Anchor.AnchorStatus, t1.Anchor.LineNumber, t1.UpdatedAt = tracker.AnchorRelocated, 9, at(4)
	// ours deletes fb-2 which theirs leaves alone; both add one.
	got, renames, err := ThreeWay(tracker.FeedbackRecords, jsonl(f1, f2), jsonl(f3, o1), jsonl(t1, f2, f4))
	if err != nil {
		t.Fatal(err)
	}
	m := o1
	m.Anchor = t1.Anchor
	if want := encodeFeedback([]tracker.Feedback{m, f3, f4}); !bytes.Equal(got, want) {
		t.Errorf("merged feedback differs at %s", diffLines(got, want))
	}
	if renames != nil {
		t.Errorf("feedback renames = %v", renames)
	}
}

func TestTwoWay(t *testing.T) {
	const (
		ua = "aaaaaaaa-0000-4000-8000-00000000000a"
		ub = "bbbbbbbb-0000-4000-8000-00000000000b"
		uc = "cccccccc-0000-4000-8000-00000000000c"
		ud = "d00d0000-0000-4000-8000-00000000000d"
	)
	a := issue("sudocode-aaaa", ua, "A", 1)
	a.Tags = []string{"x", "y"}
	b := issue("sudocode-bbbb", ub, "B", 1)
	aIn := with(a, func(r *tracker.IssueRecord) {
		r.Title, r.Tags, r.UpdatedAt = "A imported", []string{"z"}, at(2)
	})
	c := issue("sudocode-cccc", uc, "C", 1)
	d := with(issue("sudocode-bbbb", ud, "D, same id as B", 1), func(r *tracker.IssueRecord) {
		r.Relationships = []tracker.Relationship{rel("sudocode-bbbb", "sudocode-cccc", tracker.RelBlocks, 1, "bob")}
	})
	cIn := with(c, func(r *tracker.IssueRecord) { r.ParentID = new("sudocode-bbbb") })

	got, renames, err := TwoWay(tracker.IssueRecords, jsonl(a, b), jsonl(aIn, cIn, d))
	if err != nil {
		t.Fatal(err)
	}
	wantA := with(aIn, func(r *tracker.IssueRecord) { r.Tags = []string{"x", "y", "z"} }) // no base: union
	wantC := with(c, func(r *tracker.IssueRecord) { r.ParentID = new("sudocode-bbbbd") })
	wantD := with(d, func(r *tracker.IssueRecord) {
		r.ID = "sudocode-bbbbd"
		r.Relationships[0].From = "sudocode-bbbbd"
	})
	if want := encodeIssues([]tracker.IssueRecord{wantA, b, wantC, wantD}); !bytes.Equal(got, want) {
		t.Errorf("import differs at %s", diffLines(got, want))
	}
	if len(renames) != 1 || renames[0] != (Rename{"sudocode-bbbb", "sudocode-bbbbd", ud}) {
		t.Errorf("renames = %+v", renames)
	}

	// An older incoming version does not overwrite current scalars; a
	// record only in current is never deleted by an import.
	old := with(a, func(r *tracker.IssueRecord) { r.Title, r.UpdatedAt = "A stale", at(0) })
	got, _, err = TwoWay(tracker.IssueRecords, jsonl(a, b), jsonl(old))
	if err != nil {
		t.Fatal(err)
	}
	if want := encodeIssues([]tracker.IssueRecord{a, b}); !bytes.Equal(got, want) {
		t.Errorf("stale import differs at %s", diffLines(got, want))
	}
}

func TestMalformedInputIsAnError(t *testing.T) {
	good := jsonl(issue("sudocode-aaaa", "aaaaaaaa-0000-4000-8000-000000000001", "A", 0))
	bad := append(append([]byte{}, good...), []byte("\n{\"id\": \"sudocode-bbbb\", \"uuid\": \n")...)
	for _, c := range []struct {
		name       string
		b, o, th   []byte
		wantPrefix string
	}{
		{"base", bad, good, good, "base: issues.jsonl line 3: "},
		{"ours", good, bad, good, "ours: issues.jsonl line 3: "},
		{"theirs", good, good, bad, "theirs: issues.jsonl line 3: "},
	} {
		out, renames, err := ThreeWay(tracker.IssueRecords, c.b, c.o, c.th)
		if err == nil || !strings.HasPrefix(err.Error(), c.wantPrefix) {
			t.Errorf("%s: err = %v, want prefix %q", c.name, err, c.wantPrefix)
		}
		if out != nil || renames != nil {
			t.Errorf("%s: partial result returned: %q %v", c.name, out, renames)
		}
	}
	if _, _, err := TwoWay(tracker.SpecRecords, nil, []byte("{\"id\":\"s\"}\n")); err == nil || !strings.Contains(err.Error(), "specs.jsonl line 1: missing \"uuid\"") {
		t.Errorf("TwoWay with a bad incoming file: err = %v", err)
	}
	if _, _, err := ThreeWay(tracker.RecordKind(7), nil, nil, nil); err == nil {
		t.Error("unknown kind accepted")
	}
}

// TestEveryFieldMerges guards against a field added to the domain types
// and forgotten by the merge: with no base, a later side's value must reach
// the result for every field.
func TestEveryFieldMerges(t *testing.T) {
	zeroIssue := issue("sudocode-aaaa", "u-1", "", 0)
	full := fill(t, reflect.ValueOf(zeroIssue)).Interface().(tracker.IssueRecord)
	full.ID, full.UUID, full.UpdatedAt = zeroIssue.ID, zeroIssue.UUID, at(10)
	full.Relationships[0].From = full.ID
	got := mergeIssue(nil, new(zeroIssue.Canonical()), new(full.Canonical()))
	if want := full.Canonical(); !reflect.DeepEqual(got, want) {
		t.Errorf("issue merge lost fields:\n got %+v\nwant %+v", got, want)
	}

	zeroSpec := tracker.SpecRecord{Spec: tracker.Spec{ID: "s", UUID: "u-2", UpdatedAt: at(0)}}
	fullSpec := fill(t, reflect.ValueOf(zeroSpec)).Interface().(tracker.SpecRecord)
	fullSpec.ID, fullSpec.UUID, fullSpec.UpdatedAt = zeroSpec.ID, zeroSpec.UUID, at(10)
	fullSpec.Relationships[0].From = fullSpec.ID
	if got, want := mergeSpec(nil, new(zeroSpec.Canonical()), new(fullSpec.Canonical())), fullSpec.Canonical(); !reflect.DeepEqual(got, want) {
		t.Errorf("spec merge lost fields:\n got %+v\nwant %+v", got, want)
	}

	zeroFb := tracker.Feedback{ID: "f", UpdatedAt: at(0)}
	fullFb := fill(t, reflect.ValueOf(zeroFb)).Interface().(tracker.Feedback)
	fullFb.ID, fullFb.UpdatedAt = zeroFb.ID, at(10)
	if got, want := mergeFeedback(nil, new(zeroFb.Canonical()), new(fullFb.Canonical())), fullFb.Canonical(); !reflect.DeepEqual(got, want) {
		t.Errorf("feedback merge lost fields:\n got %+v\nwant %+v", got, want)
	}
}

// fill returns a copy of v with every field set to a non-zero value
// different from v's.
func fill(t *testing.T, v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(t0) {
			return reflect.ValueOf(at(12345))
		}
		for i := 0; i < v.NumField(); i++ {
			out.Field(i).Set(fill(t, v.Field(i)))
		}
	case reflect.String:
		out.SetString(v.String() + "filled")
	case reflect.Int:
		out.SetInt(v.Int() + 7)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(fill(t, reflect.New(v.Type().Elem()).Elem()))
		out.Set(p)
	case reflect.Slice:
		out.Set(reflect.Append(reflect.MakeSlice(v.Type(), 0, 1), fill(t, reflect.New(v.Type().Elem()).Elem())))
	default:
		t.Fatalf("fill: unhandled kind %v", v.Kind())
	}
	return out
}
