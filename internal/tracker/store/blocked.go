package store

import (
	"encoding/json"

	"github.com/sudocode/sudocode/internal/tracker"
)

// The cache keeps a blocked flag on every issue and spec (an unfinished
// blocker of its own, or inherited from an ancestor through parent-child:
// see settleSQL), so that ready, blocked and the counts read an index
// instead of walking the graph on every call. A rebuild computes every
// flag; a change recomputes only the flags it can move.
//
// A change seeds the items whose own blockers may differ (an item whose
// links were rewritten, the sources of blocking links to an item that
// became done or undone, the former children of an item) and settle
// recomputes the region below the seeds, their descendants through
// parent-child: every flag there is derived afresh from the region's own
// blockers and from the flags of parents outside it, which the change
// cannot have moved. Deriving the region from scratch, rather than
// flipping flags up and down, keeps it right across parent-child cycles.

// settleSQL recomputes the flags of table's rows in the region below the
// seeds (?1, a JSON array of ids).
func settleSQL(table string) string {
	return `WITH RECURSIVE
region(id) AS (
	SELECT value FROM json_each(?1)
	UNION
	SELECT r.to_id FROM region g CROSS JOIN rels r ON r.from_id = g.id AND r.type = '` + string(tracker.RelParentChild) + `'),
held(id) AS (
	SELECT g.id FROM region g
	WHERE EXISTS (SELECT 1 FROM rels WHERE from_id = g.id AND ` + blockingSQL + ` AND to_done = 0)
	   OR EXISTS (SELECT 1 FROM rels p WHERE p.to_id = g.id AND p.type = '` + string(tracker.RelParentChild) + `'
			AND p.from_id NOT IN region
			AND (EXISTS (SELECT 1 FROM issues WHERE id = p.from_id AND blocked)
			  OR EXISTS (SELECT 1 FROM specs WHERE id = p.from_id AND blocked)))
	UNION
	SELECT r.to_id FROM held h CROSS JOIN rels r ON r.from_id = h.id AND r.type = '` + string(tracker.RelParentChild) + `')
UPDATE ` + table + ` SET blocked = (id IN held) WHERE id IN region AND blocked != (id IN held)`
}

var settleIssuesSQL, settleSpecsSQL = settleSQL("issues"), settleSQL("specs")

// seed marks id's blocked flag, and its descendants', for recomputing at
// the end of the change. A rebuild computes every flag as it loads the
// rows instead (load.go).
func (t *Tx) seed(ids ...string) {
	for _, id := range ids {
		t.seeds[id] = true
	}
}

// seedChildren seeds id's children before its links are rewritten: a
// child it stops being the parent of may lose an inherited blocker.
func (t *Tx) seedChildren(id string) error {
	kids, err := t.children(id)
	t.seed(kids...)
	return err
}

// seedWaiters seeds the items that wait on id through a blocking link,
// when id became done or undone.
func (t *Tx) seedWaiters(id string) error {
	ids, err := t.waiters(id)
	t.seed(ids...)
	return err
}

// waiters are the items that wait on id through a blocking link.
func (t *Tx) waiters(id string) ([]string, error) {
	return t.ids(`SELECT from_id FROM rels WHERE to_id = ? AND `+blockingSQL, id)
}

// settle recomputes the flags the change may have moved, and the
// blockers (blockers.go).
func (t *Tx) settle() error {
	if len(t.seeds)+len(t.redescribe) == 0 {
		return nil
	}
	ids := make([]string, 0, len(t.seeds)+len(t.redescribe))
	for id := range t.seeds {
		ids = append(ids, id)
	}
	if len(ids) > 0 {
		arg, _ := json.Marshal(ids)
		for _, q := range []string{settleIssuesSQL, settleSpecsSQL} {
			if _, err := t.exec(q, string(arg)); err != nil {
				return cacheErr(err)
			}
		}
	}
	for id := range t.redescribe {
		if !t.seeds[id] {
			ids = append(ids, id)
		}
	}
	clear(t.seeds)
	clear(t.redescribe)
	arg, _ := json.Marshal(ids)
	return t.settleBlockers(string(arg))
}
