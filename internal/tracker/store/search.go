package store

import (
	"context"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// SearchOptions select a search.
type SearchOptions struct {
	Query         string
	Issues, Specs bool
	Limit         int
}

// Search finds issues and specs whose title, description or (for specs)
// markdown body hold every word of the query, case-insensitively. Title
// matches rank first, then priority, then age.
func (r *Repo) Search(ctx context.Context, o SearchOptions) (tracker.SearchResult, error) {
	terms := strings.Fields(strings.ToLower(o.Query))
	if len(terms) == 0 {
		return tracker.SearchResult{}, fault.New(fault.Invalid, "search query must not be empty")
	}
	v, err := r.read(ctx)
	if err != nil {
		return tracker.SearchResult{}, err
	}
	type scored struct {
		hit     tracker.SearchHit
		inTitle bool
		created int64
	}
	var all []scored
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
				body, _ := os.ReadFile(r.specPath(path))
				text += "\n" + string(body)
			}
			lower := strings.ToLower(text)
			if !containsAll(lower, terms) {
				continue
			}
			title := strings.ToLower(c.Title)
			hit := tracker.SearchHit{Kind: kind, Compact: c, Snippet: snippet(text, lower, terms[0])}
			hit.Description = tracker.Shorten(c.Description)
			all = append(all, scored{hit: hit, inTitle: containsAll(title, terms), created: created})
		}
		return cacheErr(rows.Err())
	}
	if o.Issues || !o.Specs {
		if err := collect(tracker.KindIssue, "issues", false); err != nil {
			return tracker.SearchResult{}, err
		}
	}
	if o.Specs || !o.Issues {
		if err := collect(tracker.KindSpec, "specs", true); err != nil {
			return tracker.SearchResult{}, err
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		switch {
		case a.inTitle != b.inTitle:
			if a.inTitle {
				return -1
			}
			return 1
		case a.hit.Priority != b.hit.Priority:
			return a.hit.Priority - b.hit.Priority
		case a.created != b.created:
			if a.created < b.created {
				return -1
			}
			return 1
		}
		return strings.Compare(a.hit.ID, b.hit.ID)
	})
	limit := listLimit(o.Limit)
	res := tracker.SearchResult{Results: []tracker.SearchHit{}, Total: len(all)}
	for i := 0; i < len(all) && i < limit; i++ {
		res.Results = append(res.Results, all[i].hit)
	}
	res.Truncated = res.Total > len(res.Results)
	res.Hint = cutHint(res.Total, len(res.Results), "more words in the query")
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
