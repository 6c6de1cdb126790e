package store

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/sudocode/sudocode/internal/tracker"
)

// BoardFilter narrows a board of issues; zero fields select everything.
// Text matches the title or description, any case. Limit is how many
// cards each column holds (default DefaultListLimit); Column and Offset
// page through one column.
type BoardFilter struct {
	Type, Assignee, Tag, Text string
	Priority                  *int
	Limit, Offset             int
	Column                    string
}

// BoardCard is an issue on a board, in the column the readiness rules put
// it in: blocked when `blocked` lists it (an unfinished blocker, direct or
// inherited, or the status blocked), else its status.
type BoardCard struct {
	tracker.Compact
	Assignee string   `json:"assignee"`
	Tags     []string `json:"tags"`
	Column   string   `json:"column"`
	Ready    bool     `json:"ready"`
}

// Board is a board's columns: how many issues each holds, and its first
// cards in ready's order (priority, then oldest).
type Board struct {
	Counts map[string]int
	Cards  []BoardCard
}

// Board reads the issues by column, with the same rule as Ready and
// Blocked, in two queries however many issues there are.
func (r *Repo) Board(ctx context.Context, f BoardFilter) (Board, error) {
	w, err := boardWhere(f)
	if err != nil {
		return Board{}, err
	}
	if f.Column != "" {
		if _, err := tracker.ParseEnum("column", f.Column, tracker.IssueStatuses); err != nil {
			return Board{}, err
		}
	}
	v, err := r.read(ctx)
	if err != nil {
		return Board{}, err
	}
	cards := cardsCTE(w)
	b := Board{Counts: map[string]int{}}
	for _, s := range tracker.IssueStatuses {
		b.Counts[string(s)] = 0
	}
	rows, err := v.q.QueryContext(ctx, cards+`SELECT col, count(*) FROM cards GROUP BY col`, w.args...)
	if err != nil {
		return Board{}, cacheErr(err)
	}
	for rows.Next() {
		var col string
		var n int
		if err := rows.Scan(&col, &n); err != nil {
			rows.Close()
			return Board{}, cacheErr(err)
		}
		b.Counts[col] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Board{}, cacheErr(err)
	}
	limit := listLimit(f.Limit)
	args := append([]any{}, w.args...)
	only := ""
	if f.Column != "" {
		only = " WHERE col = ?"
		args = append(args, f.Column)
	}
	args = append(args, max(f.Offset, 0), max(f.Offset, 0)+limit)
	// The columns are numbered over the cards' keys alone, and only the
	// page's cards read their text: sorting whole rows (descriptions, the
	// JSON line) spilled to disk at 10,000 issues.
	rows, err = v.q.QueryContext(ctx, cards+`SELECT i.id, i.title, i.status, i.priority, i.type, i.description, i.assignee, json_extract(i.line, '$.tags'), k.col, k.ready
	FROM (SELECT id, col, ready, ROW_NUMBER() OVER (PARTITION BY col ORDER BY priority, created_ns, id) AS rn FROM cards`+only+`) k
	JOIN issues i ON i.id = k.id
	WHERE k.rn > ? AND k.rn <= ? ORDER BY k.col, k.rn`, args...)
	if err != nil {
		return Board{}, cacheErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var c BoardCard
		var assignee, tags *string
		if err := rows.Scan(&c.ID, &c.Title, &c.Status, &c.Priority, &c.Type, &c.Description, &assignee, &tags, &c.Column, &c.Ready); err != nil {
			return Board{}, cacheErr(err)
		}
		b.Cards = append(b.Cards, finishCard(c, assignee, tags))
	}
	return b, cacheErr(rows.Err())
}

// finishCard shortens a card's description and sets its assignee and
// tags as read from the cache.
func finishCard(c BoardCard, assignee, tags *string) BoardCard {
	c.Description = tracker.Shorten(c.Description)
	if assignee != nil {
		c.Assignee = *assignee
	}
	c.Tags = []string{}
	if tags != nil {
		_ = json.Unmarshal([]byte(*tags), &c.Tags) // the line is canonical JSON the store wrote
	}
	return c
}

// boardWhere is the condition of a board's filters (all but its page).
func boardWhere(f BoardFilter) (where, error) {
	var w where
	if err := addEnum(&w, "type", "type", f.Type, tracker.IssueTypes); err != nil {
		return w, err
	}
	if err := addPriority(&w, f.Priority); err != nil {
		return w, err
	}
	if f.Assignee != "" {
		w.add("assignee = ?", f.Assignee)
	}
	if f.Tag != "" {
		w.add("EXISTS (SELECT 1 FROM json_each(line, '$.tags') WHERE value = ?)", f.Tag)
	}
	if f.Text != "" {
		pat := "%" + likeEscaper.Replace(f.Text) + "%"
		w.add(`(title LIKE ? ESCAPE '\' OR description LIKE ? ESCAPE '\')`, pat, pat)
	}
	return w, nil
}

// cardsCTE is the issues w selects, each with its column (col) by the rule
// of ready and blocked and whether it is ready: a WITH clause ending in
// the table cards, to follow with a SELECT. It reads the blocked flag the
// cache keeps (blocked.go) rather than walking the links again (the
// board of 10,000 issues took 150 ms, most of it that walk and the sort
// of whole rows).
func cardsCTE(w where) string {
	return `WITH cards AS (SELECT id, title, status, priority, type, description, assignee, line, created_ns, updated_ns,
	CASE WHEN ` + issueBlockedSQL + ` THEN '` + string(tracker.IssueBlocked) + `' ELSE status END AS col,
	(` + issueReadySQL + ` AND blocked = 0) AS ready
	FROM issues WHERE ` + w.sql() + `)
`
}

// likeEscaper makes a text match itself in a LIKE pattern.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
