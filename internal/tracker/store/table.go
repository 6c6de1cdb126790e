package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
)

// TableSorts are the orders of a table of issues, and TableGroups what it
// can be grouped by ("" for no groups).
var (
	TableSorts  = []string{"id", "title", "status", "priority", "assignee", "updated"}
	TableGroups = []string{"", "status", "priority", "assignee"}
)

// TableOptions select a page of the table of issues: the board's filters
// (Column is not used), sorted by Sort (default priority), descending when
// Desc, and grouped by Group (the groups first, in their own order).
type TableOptions struct {
	BoardFilter
	Sort, Group string
	Desc        bool
}

// TableRow is an issue in the table.
type TableRow struct {
	BoardCard
	UpdatedAt time.Time `json:"updated_at"`
}

// TableGroup is a group of the table and how many issues it holds (all of
// them, not only those of the page).
type TableGroup struct {
	Key   string `json:"key"`
	Count int    `json:"count"`
}

// Table is a page of the table of issues, with its groups and the number
// of issues the filters select.
type Table struct {
	Rows   []TableRow
	Groups []TableGroup
	Total  int
}

// statusOrder sorts board columns in the tracker's order of statuses.
func statusOrder() string {
	var b strings.Builder
	b.WriteString("CASE col")
	for i, s := range tracker.IssueStatuses {
		fmt.Fprintf(&b, " WHEN '%s' THEN %d", s, i)
	}
	b.WriteString(" END")
	return b.String()
}

// tableKey is the SQL that sorts by a column of the table, and for a
// group the SQL of the group's key; an unassigned issue comes last
// whichever the direction.
func tableKey(name string, desc bool) (order, key string) {
	dir := ""
	if desc {
		dir = " DESC"
	}
	switch name {
	case "id":
		return "id" + dir, "id"
	case "title":
		return "title COLLATE NOCASE" + dir, "title"
	case "status":
		return statusOrder() + dir, "col"
	case "assignee":
		return "assignee IS NULL, assignee COLLATE NOCASE" + dir, "COALESCE(assignee, '')"
	case "updated":
		return "updated_ns" + dir, "updated_ns"
	}
	return "priority" + dir, "CAST(priority AS TEXT)"
}

// Table reads a page of the issues the filters select, each in its board
// column, sorted and grouped, with the groups' sizes: two queries however
// many issues there are.
func (r *Repo) Table(ctx context.Context, o TableOptions) (Table, error) {
	if _, err := tracker.ParseEnum("sort", o.Sort, TableSorts); o.Sort != "" && err != nil {
		return Table{}, err
	}
	if _, err := tracker.ParseEnum("group", o.Group, TableGroups); err != nil {
		return Table{}, err
	}
	w, err := boardWhere(o.BoardFilter)
	if err != nil {
		return Table{}, err
	}
	v, err := r.read(ctx)
	if err != nil {
		return Table{}, err
	}
	cards := cardsCTE(w)
	t := Table{Rows: []TableRow{}, Groups: []TableGroup{}}
	order, _ := tableKey(o.Sort, o.Desc)
	if o.Group != "" {
		gOrder, gKey := tableKey(o.Group, false)
		order = gOrder + ", " + order
		rows, err := v.q.QueryContext(ctx, cards+`SELECT `+gKey+` AS k, count(*) FROM cards GROUP BY k ORDER BY min(`+strings.ReplaceAll(gOrder, ", ", "), min(")+`)`, w.args...)
		if err != nil {
			return Table{}, cacheErr(err)
		}
		for rows.Next() {
			var g TableGroup
			if err := rows.Scan(&g.Key, &g.Count); err != nil {
				rows.Close()
				return Table{}, cacheErr(err)
			}
			t.Groups = append(t.Groups, g)
			t.Total += g.Count
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return Table{}, cacheErr(err)
		}
	} else if t.Total, err = v.count(cards+`SELECT count(*) FROM cards`, w.args...); err != nil {
		return Table{}, err
	}
	args := append(append([]any{}, w.args...), listLimit(o.Limit), max(o.Offset, 0))
	rows, err := v.q.QueryContext(ctx, cards+`SELECT id, title, status, priority, type, description, assignee, json_extract(line, '$.tags'), col, ready, updated_ns
	FROM cards ORDER BY `+order+`, priority, created_ns, id LIMIT ? OFFSET ?`, args...)
	if err != nil {
		return Table{}, cacheErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var row TableRow
		var assignee, tags *string
		var ns int64
		if err := rows.Scan(&row.ID, &row.Title, &row.Status, &row.Priority, &row.Type, &row.Description, &assignee, &tags, &row.Column, &row.Ready, &ns); err != nil {
			return Table{}, cacheErr(err)
		}
		row.BoardCard = finishCard(row.BoardCard, assignee, tags)
		row.UpdatedAt = time.Unix(0, ns).UTC()
		t.Rows = append(t.Rows, row)
	}
	return t, cacheErr(rows.Err())
}

// Assignees are the assignees of the project's issues, the most used
// first, each with its number of issues.
func (r *Repo) Assignees(ctx context.Context) ([]TableGroup, error) {
	v, err := r.read(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := v.q.QueryContext(ctx, `SELECT assignee, count(*) AS n FROM issues WHERE assignee IS NOT NULL AND assignee != '' GROUP BY assignee ORDER BY n DESC, assignee`)
	if err != nil {
		return nil, cacheErr(err)
	}
	defer rows.Close()
	out := []TableGroup{}
	for rows.Next() {
		var g TableGroup
		if err := rows.Scan(&g.Key, &g.Count); err != nil {
			return nil, cacheErr(err)
		}
		out = append(out, g)
	}
	return out, cacheErr(rows.Err())
}
