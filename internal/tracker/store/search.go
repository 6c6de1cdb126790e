package store

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/cursor"
	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// SearchOptions select a search; Cursor, the next_cursor of a previous
// page of the same search, starts after it.
type SearchOptions struct {
	Query         string
	Issues, Specs bool
	Limit         int
	Cursor        string
}

// searchKey is the position in search's order: title matches first, then
// priority, age and id.
type searchKey struct {
	T  bool   `json:"t"`
	P  int    `json:"p"`
	C  int64  `json:"c"`
	ID string `json:"id"`
}

func (a searchKey) compare(b searchKey) int {
	switch {
	case a.T != b.T:
		if a.T {
			return -1
		}
		return 1
	case a.P != b.P:
		return a.P - b.P
	case a.C != b.C:
		if a.C < b.C {
			return -1
		}
		return 1
	}
	return strings.Compare(a.ID, b.ID)
}

// Search finds issues and specs whose title, description or (for specs)
// markdown body hold every word of the query, case-insensitively. Title
// matches rank first, then priority, then age.
func (r *Repo) Search(ctx context.Context, o SearchOptions) (tracker.SearchResult, error) {
	terms := strings.Fields(strings.ToLower(o.Query))
	if len(terms) == 0 {
		return tracker.SearchResult{}, fault.New(fault.Invalid, "search query must not be empty")
	}
	withIssues, withSpecs := o.Issues || !o.Specs, o.Specs || !o.Issues
	scope := cursor.For("search", strings.Join(terms, " "), withIssues, withSpecs)
	var after *searchKey
	if o.Cursor != "" {
		after = new(searchKey)
		if err := cursor.Decode(o.Cursor, scope, after); err != nil {
			return tracker.SearchResult{}, err
		}
		if err := checkID(after.ID); err != nil {
			return tracker.SearchResult{}, err
		}
	}
	v, err := r.read(ctx)
	if err != nil {
		return tracker.SearchResult{}, err
	}
	type scored struct {
		hit tracker.SearchHit
		key searchKey
	}
	var all []scored
	b, err := openBodies(r.Dir)
	if err != nil {
		return tracker.SearchResult{}, err
	}
	defer b.Close()
	collect := func(kind tracker.Kind, table string, withBody bool) error {
		rows, err := v.q.QueryContext(ctx, `SELECT id, title, status, priority, type, coalesce(description, ''), created_ns`+
			map[bool]string{true: `, file_path`, false: `, ''`}[withBody]+` FROM `+table)
		if err != nil {
			return cacheErr(err)
		}
		defer rows.Close()
		for rows.Next() {
			var c tracker.Compact
			var created int64
			var path string
			if err := rows.Scan(&c.ID, &c.Title, &c.Status, &c.Priority, &c.Type, &c.Description, &created, &path); err != nil {
				return cacheErr(err)
			}
			text := c.Title + "\n" + c.Description
			if withBody {
				body, _ := b.read(path) // a body the tracker may not read is searched as empty
				text += "\n" + string(body)
			}
			lower := strings.ToLower(text)
			if !containsAll(lower, terms) {
				continue
			}
			title := strings.ToLower(c.Title)
			hit := tracker.SearchHit{Kind: kind, Compact: c, Snippet: snippet(text, lower, terms[0])}
			hit.Description = tracker.Shorten(c.Description)
			all = append(all, scored{hit: hit, key: searchKey{T: containsAll(title, terms), P: c.Priority, C: created, ID: c.ID}})
		}
		return cacheErr(rows.Err())
	}
	if withIssues {
		if err := collect(tracker.KindIssue, "issues", false); err != nil {
			return tracker.SearchResult{}, err
		}
	}
	if withSpecs {
		if err := collect(tracker.KindSpec, "specs", true); err != nil {
			return tracker.SearchResult{}, err
		}
	}
	slices.SortFunc(all, func(a, b scored) int { return a.key.compare(b.key) })
	start := 0
	if after != nil {
		start, _ = slices.BinarySearchFunc(all, *after, func(s scored, k searchKey) int {
			if s.key.compare(k) <= 0 {
				return -1 // at or before the cursor
			}
			return 1
		})
	}
	end := min(len(all), start+listLimit(o.Limit))
	res := tracker.SearchResult{Results: []tracker.SearchHit{}, Total: len(all)}
	keys := make([]searchKey, 0, end-start)
	for _, s := range all[start:end] {
		res.Results = append(res.Results, s.hit)
		keys = append(keys, s.key)
	}
	res.Truncated = end < len(all)
	res.Hint = cutHint(res.Total, len(res.Results), res.Truncated, "more words in the query")
	res.Page, res.NextCursor = pageOf(scope, keys, start, res.Truncated)
	return res, nil
}

func containsAll(s string, terms []string) bool {
	for _, t := range terms {
		if !strings.Contains(s, t) {
			return false
		}
	}
	return true
}

// snippet is up to 80 characters of text around the first match of term.
func snippet(text, lower, term string) string {
	i := strings.Index(lower, term)
	if i < 0 || len(lower) != len(text) { // case folding changed lengths: take the start
		i = 0
	}
	start := max(0, i-30)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	end := min(len(text), start+80)
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	s := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}
