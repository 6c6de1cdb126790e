package merge

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sudocode/sudocode/internal/tracker"
)

// gen makes random but reproducible tracker data.
type gen struct {
	r   *rand.Rand
	ids []string // every id a relationship may point at
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, 0x5eed))}
}

func (g *gen) uuid() string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x",
		g.r.Uint32(), g.r.Uint32()&0xffff, g.r.Uint32()&0xfff, g.r.Uint32()&0xfff, g.r.Uint64()&0xffffffffffff)
}

func (g *gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

var tagPool = []string{"a", "b", "c", "d", "e"}

func (g *gen) tags() []string {
	if g.r.IntN(4) == 0 {
		return nil
	}
	var out []string
	for range g.r.IntN(4) {
		out = append(out, g.pick(tagPool)) // duplicates and disorder on purpose
	}
	return out
}

func (g *gen) rels(from string, upd int) []tracker.Relationship {
	var out []tracker.Relationship
	for range g.r.IntN(3) {
		out = append(out, rel(from, g.pick(g.ids), tracker.RelTypes[g.r.IntN(3)], upd, g.pick([]string{"x", "y"})))
	}
	return out
}

func (g *gen) issue(id string, upd int) tracker.IssueRecord {
	r := issue(id, g.uuid(), "title "+id, upd)
	r.Priority = g.r.IntN(5)
	r.Tags = g.tags()
	r.Relationships = g.rels(id, upd)
	return r
}

// edit changes some fields of r, stamped at minute upd.
func (g *gen) edit(r tracker.IssueRecord, upd int) tracker.IssueRecord {
	return with(r, func(r *tracker.IssueRecord) {
		r.UpdatedAt = at(upd)
		if g.r.IntN(2) == 0 {
			r.Title = fmt.Sprintf("title %d", g.r.IntN(3))
		}
		if g.r.IntN(2) == 0 {
			r.Priority = g.r.IntN(5)
		}
		if g.r.IntN(3) == 0 {
			r.Status, r.ClosedAt, r.CloseReason = tracker.IssueClosed, new(at(upd)), new("Completed")
		}
		if g.r.IntN(3) == 0 {
			r.ParentID = new(g.pick(g.ids))
		}
		if g.r.IntN(2) == 0 {
			if len(r.Tags) > 0 && g.r.IntN(2) == 0 {
				r.Tags = r.Tags[1:]
			} else {
				r.Tags = append(r.Tags, g.pick(tagPool))
			}
		}
		if g.r.IntN(2) == 0 {
			if len(r.Relationships) > 0 && g.r.IntN(2) == 0 {
				r.Relationships = r.Relationships[1:]
			} else {
				r.Relationships = append(r.Relationships, g.rels(r.ID, upd)...)
			}
		}
	})
}

// side derives a branch from base: records kept, edited or deleted, and new
// ones with ids drawn from a small pool so that both sides collide often.
// Edits are stamped at minutes of the given parity, so the two sides never
// tie on updated_at (a tie is resolved for ours, which is not symmetric).
func (g *gen) side(base []tracker.IssueRecord, parity int) []tracker.IssueRecord {
	var out []tracker.IssueRecord
	for _, r := range base {
		switch g.r.IntN(4) {
		case 0: // deleted
		case 1:
			out = append(out, g.edit(r, 100+2*g.r.IntN(50)+parity))
		default:
			out = append(out, r)
		}
	}
	for _, id := range g.r.Perm(4)[:g.r.IntN(3)] {
		out = append(out, g.issue(fmt.Sprintf("new-%d", id), 100+2*g.r.IntN(50)+parity))
	}
	g.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func (g *gen) base() []tracker.IssueRecord {
	n := g.r.IntN(6)
	g.ids = []string{"new-0", "new-1", "new-2", "new-3"}
	for i := range n {
		g.ids = append(g.ids, fmt.Sprintf("base-%d", i))
	}
	var out []tracker.IssueRecord
	for i := range n {
		out = append(out, g.issue(fmt.Sprintf("base-%d", i), g.r.IntN(50)))
	}
	g.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestSelfMergeIsCanonical: merging a file with itself (base = ours =
// theirs) gives its canonical encoding, for each kind.
func TestSelfMergeIsCanonical(t *testing.T) {
	for seed := range uint64(200) {
		g := newGen(seed)
		x := jsonl(g.base()...)
		recs, err := tracker.ParseIssues(x, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, renames, err := ThreeWay(tracker.IssueRecords, x, x, x)
		if err != nil || renames != nil {
			t.Fatalf("seed %d: %v %v", seed, renames, err)
		}
		if want := encodeIssues(recs); !bytes.Equal(got, want) {
			t.Fatalf("seed %d: self-merge differs from canonical at %s", seed, diffLines(got, want))
		}
		if two, _, err := TwoWay(tracker.IssueRecords, x, x); err != nil || !bytes.Equal(two, got) {
			t.Fatalf("seed %d: TwoWay(x, x) differs (%v)", seed, err)
		}
	}
	fbs := jsonl(feedback("fb-2", "b", 3), feedback("fb-1", "a", 2))
	want := encodeFeedback([]tracker.Feedback{feedback("fb-1", "a", 2), feedback("fb-2", "b", 3)})
	if got, _, err := ThreeWay(tracker.FeedbackRecords, fbs, fbs, fbs); err != nil || !bytes.Equal(got, want) {
		t.Errorf("feedback self-merge: %v\n%s", err, got)
	}
	sp := jsonl(tracker.SpecRecord{Spec: tracker.Spec{ID: "s-2", UUID: "u2", Tags: []string{"b", "a"}}},
		tracker.SpecRecord{Spec: tracker.Spec{ID: "s-1", UUID: "u1"}})
	recs, _ := tracker.ParseSpecs(sp, nil)
	if got, _, err := ThreeWay(tracker.SpecRecords, sp, sp, sp); err != nil || !bytes.Equal(got, encodeSpecs(recs)) {
		t.Errorf("spec self-merge: %v\n%s", err, got)
	}
}

// TestThreeWaySymmetric: ThreeWay(base, A, B) and ThreeWay(base, B, A) agree
// once the collision renames (made on whichever side is theirs) are undone,
// and each is deterministic and independent of line order.
func TestThreeWaySymmetric(t *testing.T) {
	collisions := 0
	for seed := range uint64(500) {
		g := newGen(seed)
		base := g.base()
		a, b := g.side(base, 0), g.side(base, 1)
		ab, rab, err := ThreeWay(tracker.IssueRecords, jsonl(base...), jsonl(a...), jsonl(b...))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		ba, rba, err := ThreeWay(tracker.IssueRecords, jsonl(base...), jsonl(b...), jsonl(a...))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(rab) != len(rba) {
			t.Fatalf("seed %d: %d renames one way, %d the other", seed, len(rab), len(rba))
		}
		collisions += len(rab)
		if x, y := undoRenames(t, ab, rab), undoRenames(t, ba, rba); !bytes.Equal(x, y) {
			t.Fatalf("seed %d: not symmetric at %s\nbase:\n%s\nA:\n%s\nB:\n%s", seed, diffLines(x, y),
				jsonl(base...), jsonl(a...), jsonl(b...))
		}
		// Same inputs with the lines in another order: identical bytes.
		slices.Reverse(a)
		slices.Reverse(b)
		again, _, err := ThreeWay(tracker.IssueRecords, jsonl(base...), jsonl(a...), jsonl(b...))
		if err != nil || !bytes.Equal(again, ab) {
			t.Fatalf("seed %d: output depends on line order (%v)", seed, err)
		}
		// The result holds every uuid once and every id once.
		recs, err := tracker.ParseIssues(ab, nil)
		if err != nil {
			t.Fatalf("seed %d: result does not parse: %v", seed, err)
		}
		if !bytes.Equal(encodeIssues(recs), ab) {
			t.Fatalf("seed %d: result is not canonical", seed)
		}
	}
	if collisions == 0 {
		t.Error("the generator never produced an id collision")
	}
}

// undoRenames maps every renamed id back to its old one, everywhere in the
// file, and re-encodes it.
func undoRenames(t *testing.T, data []byte, renames []Rename) []byte {
	recs, err := tracker.ParseIssues(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	back := map[string]string{}
	for _, r := range renames {
		back[r.New] = r.Old
	}
	for i := range recs {
		recs[i] = recs[i].Canonical()
		issueSpec.rename(&recs[i], nil, back, nil)
	}
	return encodeIssues(recs)
}
