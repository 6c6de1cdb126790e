package store

import (
	"encoding/binary"
	"errors"
	"slices"

	"github.com/sudocode/sudocode/internal/tracker"
)

// Beside the blocked flag, the cache keeps each item's blockers as
// tracker.Blockers derives them (the blockers column, NULL when there is
// none), so that listing blocked work reads rows as listing does, instead
// of walking the graph above every row it lists.
//
// They are kept current where the flag is: settle derives them afresh
// for the whole region below the seeds (an item's blockers are its own
// and its ancestors'), and a rebuild derives them in memory as it loads
// the rows. A blocker's description is part of them too, so a change of
// an item's title, status or type marks the items that wait on it
// (Tx.redescribe): their region's blockers are derived again, without
// the flags' recomputation, which such a change cannot move.

// regionSQL is the seeds ?1 (a JSON array of ids) and their descendants
// through parent-child: settleSQL's region.
var regionSQL = `WITH RECURSIVE region(id) AS (
	SELECT value FROM json_each(?1)
	UNION
	SELECT r.to_id FROM region g CROSS JOIN rels r ON r.from_id = g.id AND r.type = '` + string(tracker.RelParentChild) + `')
SELECT id FROM region`

// settleBlockers derives the blockers of the region below the seeds
// (arg, a JSON array of ids) and stores those that changed.
func (t *Tx) settleBlockers(arg string) error {
	region, err := t.ids(regionSQL, arg)
	if err != nil {
		return err
	}
	g, err := t.pageGraph(region)
	if err != nil {
		return err
	}
	for _, id := range region {
		bs, err := tracker.Blockers(g, id)
		if err != nil {
			return err
		}
		enc := encodeBlockers(bs)
		for _, table := range []string{"issues", "specs"} {
			if _, err := t.exec(`UPDATE `+table+` SET blockers = ?2 WHERE id = ?1 AND blockers IS NOT ?2`, id, enc); err != nil {
				return cacheErr(err)
			}
		}
	}
	return nil
}

// encodeBlockers is the blockers column's value, nil (NULL) for none:
// each blocker's id, title, status, type and via (empty for none: an id
// never is), each a length (a uvarint) and its bytes. Reading it back costs a fraction of decoding
// JSON, which took a third of listing blocked work.
func encodeBlockers(bs []tracker.Blocker) any {
	if len(bs) == 0 {
		return nil
	}
	var b []byte
	for _, x := range bs {
		via := ""
		if x.Via != nil {
			via = *x.Via
		}
		for _, f := range [...]string{x.ID, x.Title, x.Status, x.Type, via} {
			b = binary.AppendUvarint(b, uint64(len(f)))
			b = append(b, f...)
		}
	}
	return b
}

// decodeBlockers reads the blockers column; NULL is none. The strings
// share one copy of the column's bytes.
func decodeBlockers(col []byte) ([]tracker.Blocker, error) {
	out := []tracker.Blocker{}
	s := string(col)
	field := func() (string, bool) {
		n, w := uvarint(s)
		if w == 0 || uint64(len(s)-w) < n {
			return "", false
		}
		f := s[w : w+int(n)]
		s = s[w+int(n):]
		return f, true
	}
	for s != "" {
		var x tracker.Blocker
		var via string
		ok := true
		for _, f := range [...]*string{&x.ID, &x.Title, &x.Status, &x.Type, &via} {
			if *f, ok = field(); !ok {
				return nil, cacheErr(errors.New("a blocked item's blockers are not as the cache stores them"))
			}
		}
		if via != "" {
			x.Via = &via
		}
		out = append(out, x)
	}
	return out, nil
}

// loadBlockers derives the blockers of the blocked items of a rebuild
// from its links and records, as settleBlockers does from the tables:
// the graph in memory is the one pageGraph reads, in the same orders.
func loadBlockers(links []tracker.Relationship, done, blocked map[string]bool, issues []tracker.IssueRecord, specs []tracker.SpecRecord) map[string]any {
	g := &pageGraph{targets: map[string][]string{}, parents: map[string][]string{}, unfinished: map[string]tracker.Blocker{}}
	waitedOn := map[string]bool{}
	for _, r := range links {
		if r.Type == tracker.RelParentChild {
			g.parents[r.To] = append(g.parents[r.To], r.From) // links come in (from, type, to) order: each child's parents in id order
		}
		if r.Type.Blocking() && isOpen(done, r.To) {
			g.targets[r.From] = append(g.targets[r.From], r.To)
			waitedOn[r.To] = true
		}
	}
	for _, ts := range g.targets {
		slices.Sort(ts) // both link types in one id order, as BlockTargets reads them
	}
	for i := range specs {
		if s := &specs[i]; waitedOn[s.ID] {
			g.unfinished[s.ID] = tracker.Blocker{ID: s.ID, Title: s.Title, Status: string(s.Status), Type: string(s.Type)}
		}
	}
	for i := range issues {
		if is := &issues[i]; waitedOn[is.ID] { // an id both an issue and a spec is the issue
			g.unfinished[is.ID] = tracker.Blocker{ID: is.ID, Title: is.Title, Status: string(is.Status), Type: string(is.Type)}
		}
	}
	out := make(map[string]any, len(blocked))
	for id := range blocked {
		bs, _ := tracker.Blockers(g, id) // the graph in memory does not fail
		out[id] = encodeBlockers(bs)
	}
	return out
}

// uvarint is binary.Uvarint of a string's start: its value and width, 0
// when s does not start with one.
func uvarint(s string) (uint64, int) {
	var x uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		x |= uint64(s[i]&0x7f) << (7 * i)
		if s[i] < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}
