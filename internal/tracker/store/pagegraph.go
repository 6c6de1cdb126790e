package store

import (
	"encoding/json"

	"github.com/sudocode/sudocode/internal/tracker"
)

// pageGraph answers tracker.BlockGraph for a page of items and all their
// ancestors from three queries made up front, instead of three per item
// and ancestor: a page of blocked items costs the same few round trips
// whatever its length.
type pageGraph struct {
	targets    map[string][]string
	parents    map[string][]string
	unfinished map[string]tracker.Blocker
}

// upSQL is ids (?1, a JSON array) and their ancestors through parent-child.
const upSQL = `WITH RECURSIVE up(id) AS (
	SELECT value FROM json_each(?1)
	UNION
	SELECT r.from_id FROM up u CROSS JOIN rels r ON r.to_id = u.id AND r.type = 'parent-child')
	SELECT id FROM up`

func (v view) pageGraph(ids []string) (*pageGraph, error) {
	g := &pageGraph{targets: map[string][]string{}, parents: map[string][]string{}, unfinished: map[string]tracker.Blocker{}}
	seeds, _ := json.Marshal(ids)
	// The page's items and their ancestors, walked once: the three
	// queries below start from them.
	up, err := v.ids(upSQL, string(seeds))
	if err != nil {
		return nil, err
	}
	arg, _ := json.Marshal(up)
	if err := v.pairs(`SELECT r.from_id, r.to_id FROM (SELECT value AS id FROM json_each(?1)) u CROSS JOIN rels r ON r.from_id = u.id AND `+blockingSQL+` ORDER BY r.from_id, r.to_id`,
		string(arg), func(from, to string) { g.targets[from] = append(g.targets[from], to) }); err != nil {
		return nil, err
	}
	if err := v.pairs(`SELECT r.to_id, r.from_id FROM (SELECT value AS id FROM json_each(?1)) u CROSS JOIN rels r ON r.to_id = u.id AND r.type = 'parent-child' ORDER BY r.to_id, r.from_id`,
		string(arg), func(child, parent string) { g.parents[child] = append(g.parents[child], parent) }); err != nil {
		return nil, err
	}
	rows, err := v.q.QueryContext(v.ctx, `WITH t(id) AS (SELECT DISTINCT r.to_id FROM (SELECT value AS id FROM json_each(?1)) u CROSS JOIN rels r ON r.from_id = u.id AND `+blockingSQL+` AND r.to_done = 0)
		SELECT i.id, i.title, i.status, i.type FROM t CROSS JOIN issues i ON i.id = t.id WHERE NOT `+issueDoneSQL+`
		UNION ALL SELECT s.id, s.title, s.status, s.type FROM t CROSS JOIN specs s ON s.id = t.id WHERE NOT `+specDoneSQL, string(arg))
	if err != nil {
		return nil, cacheErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var b tracker.Blocker
		if err := rows.Scan(&b.ID, &b.Title, &b.Status, &b.Type); err != nil {
			return nil, cacheErr(err)
		}
		g.unfinished[b.ID] = b
	}
	return g, cacheErr(rows.Err())
}

// pairs runs a query of two string columns with one argument.
func (v view) pairs(query, arg string, each func(a, b string)) error {
	rows, err := v.q.QueryContext(v.ctx, query, arg)
	if err != nil {
		return cacheErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			return cacheErr(err)
		}
		each(a, b)
	}
	return cacheErr(rows.Err())
}

func (g *pageGraph) BlockTargets(id string) ([]string, error) { return g.targets[id], nil }
func (g *pageGraph) Parents(id string) ([]string, error)      { return g.parents[id], nil }
func (g *pageGraph) Unfinished(id string) (tracker.Blocker, bool, error) {
	b, ok := g.unfinished[id]
	return b, ok, nil
}
