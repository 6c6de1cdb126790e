package store

import (
	"database/sql"
	"encoding/json"

	"github.com/sudocode/sudocode/internal/tracker"
)

// pageGraph answers tracker.BlockGraph for a page of items and all their
// ancestors from two queries made up front, instead of three per item and
// ancestor: a page of blocked items costs the same two round trips
// whatever its length, and each item and ancestor is looked up once in
// each of them.
type pageGraph struct {
	targets    map[string][]string
	parents    map[string][]string
	unfinished map[string]tracker.Blocker
}

// ancestorsSQL is every parent-child link above the items ?1 (a JSON array
// of ids), as (child, parent), each child's parents in id order. The walk
// carries the links themselves, so that an ancestor's parents are looked
// up as it is reached, not again to list them.
var ancestorsSQL = `WITH RECURSIVE up(child, parent) AS (
	SELECT r.to_id, r.from_id FROM json_each(?1) j CROSS JOIN rels r ON r.to_id = j.value AND r.type = '` + string(tracker.RelParentChild) + `'
	UNION
	SELECT r.to_id, r.from_id FROM up u CROSS JOIN rels r ON r.to_id = u.parent AND r.type = '` + string(tracker.RelParentChild) + `')
SELECT child, parent FROM up ORDER BY child, parent`

// openBlockersSQL is every blocking link from the items ?1 (a JSON array of
// ids) to an unfinished item, in (from, to) order, with the title, status
// and type of what it points at (NULL when that is missing or done after
// all). The partial index rels_open_blocking holds exactly these links.
var openBlockersSQL = `SELECT r.from_id, r.to_id, coalesce(i.title, s.title), coalesce(i.status, s.status), coalesce(i.type, s.type)
	FROM json_each(?1) j CROSS JOIN rels r INDEXED BY rels_open_blocking ON r.from_id = j.value AND ` + in("r.type", tracker.BlockingRelTypes) + ` AND r.to_done = 0
	LEFT JOIN issues i ON i.id = r.to_id AND NOT ` + in("i.status", tracker.DoneIssueStatuses) + `
	LEFT JOIN specs s ON s.id = r.to_id AND NOT ` + in("s.status", tracker.DoneSpecStatuses) + `
	ORDER BY r.from_id, r.to_id`

func (v view) pageGraph(ids []string) (*pageGraph, error) {
	g := &pageGraph{targets: map[string][]string{}, parents: map[string][]string{}, unfinished: map[string]tracker.Blocker{}}
	seeds, _ := json.Marshal(ids)
	// The page's items and their ancestors: the blockers of each are read
	// at once below.
	nodes := append([]string(nil), ids...)
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		seen[id] = true
	}
	if err := v.pairs(ancestorsSQL, string(seeds), func(child, parent string) {
		g.parents[child] = append(g.parents[child], parent)
		if !seen[parent] {
			seen[parent] = true
			nodes = append(nodes, parent)
		}
	}); err != nil {
		return nil, err
	}
	arg, _ := json.Marshal(nodes)
	rows, err := v.q.QueryContext(v.ctx, openBlockersSQL, string(arg))
	if err != nil {
		return nil, cacheErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var from string
		var b tracker.Blocker
		var title, status, typ sql.NullString
		if err := rows.Scan(&from, &b.ID, &title, &status, &typ); err != nil {
			return nil, cacheErr(err)
		}
		if !status.Valid {
			continue // not an unfinished item: it blocks nothing
		}
		b.Title, b.Status, b.Type = title.String, status.String, typ.String
		g.targets[from] = append(g.targets[from], b.ID)
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
