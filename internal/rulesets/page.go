package rulesets

import (
	"context"
	"fmt"
	"strings"

	"github.com/sudocode/sudocode/internal/cursor"
	"github.com/sudocode/sudocode/internal/fault"
)

// Lists and searches are paged by keyset: a cursor holds the key of the
// last ruleset of its page (its created_at, then its name: list order),
// and the next page is the rulesets whose key is greater. A ruleset's key
// never changes (an update keeps created_at), so a ruleset that exists for
// the whole walk is listed exactly once, whatever is created or deleted
// meanwhile; one created during the walk is listed when its key falls
// after the position reached (created_at has one-second precision, so a
// ruleset created in the second of that position is listed only when its
// name sorts after the position's).

// Page sizes of list_rulesets and search_rulesets.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000
)

// PageKey is a position in list order: after the ruleset named Name,
// created at CreatedAt (its stored form, RFC3339 UTC, which sorts as the
// time does).
type PageKey struct {
	CreatedAt string `json:"c"`
	Name      string `json:"n"`
}

// KeyOf is the position of s.
func KeyOf(s Summary) PageKey { return PageKey{CreatedAt: Timestamp(s.CreatedAt), Name: s.Name} }

// Compare orders keys as lists do.
func (k PageKey) Compare(o PageKey) int {
	if c := strings.Compare(k.CreatedAt, o.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(k.Name, o.Name)
}

// Page is what a store returns for a page: up to a limit of summaries in
// list order, how many rulesets match in all, and whether more follow.
type Page struct {
	Items []Summary
	Total int
	More  bool
}

// Result is a page of a list or search as the tools and their structured
// content show it; NextCursor continues it and is empty on the last page.
type Result struct {
	Rulesets   []Summary `json:"rulesets"`
	Total      int       `json:"total"`
	NextCursor string    `json:"nextCursor,omitempty"`
}

// ListPage is a page of every ruleset, oldest first: limit of them (0 is
// DefaultPageSize) after the position of cursor (empty: the start).
func (l Library) ListPage(ctx context.Context, cursor string, limit int) (Result, error) {
	return l.page(ctx, "*", cursor, limit)
}

// SearchPage is a page of the rulesets whose names match pattern, as
// ListPage pages the list.
func (l Library) SearchPage(ctx context.Context, pattern, cursor string, limit int) (Result, error) {
	if err := checkPattern(pattern); err != nil {
		return Result{}, err
	}
	return l.page(ctx, pattern, cursor, limit)
}

// CheckLimit refuses a page size outside 1..MaxPageSize; 0 is the default.
func CheckLimit(limit int) error {
	if limit < 0 || limit > MaxPageSize {
		return fault.New(fault.Invalid, "invalid parameter 'limit': must be between 1 and %d (default %d)", MaxPageSize, DefaultPageSize)
	}
	return nil
}

func (l Library) page(ctx context.Context, pattern, c string, limit int) (Result, error) {
	if err := CheckLimit(limit); err != nil {
		return Result{}, err
	}
	if limit == 0 {
		limit = DefaultPageSize
	}
	scope := cursor.For("rulesets", pattern)
	var after *PageKey
	if c != "" {
		after = new(PageKey)
		if err := cursor.Decode(c, scope, after); err != nil {
			return Result{}, err
		}
		if _, err := ParseTimestamp(after.CreatedAt); err != nil || ValidateName(after.Name) != nil {
			return Result{}, cursor.Invalid("malformed position")
		}
	}
	p, err := l.Store.SearchPage(ctx, pattern, after, limit)
	if err != nil {
		return Result{}, err
	}
	res := Result{Rulesets: p.Items, Total: p.Total}
	if res.Rulesets == nil {
		res.Rulesets = []Summary{}
	}
	if p.More && len(p.Items) > 0 {
		res.NextCursor = cursor.Encode(scope, KeyOf(p.Items[len(p.Items)-1]))
	}
	return res, nil
}

func checkPattern(pattern string) error {
	if len(pattern) > 4*MaxNameLen {
		return fault.New(fault.Invalid, "pattern is too long (%d bytes; the limit is %d)", len(pattern), 4*MaxNameLen)
	}
	return nil
}

// FormatListPage renders a page of list_rulesets: the specification's text
// (with the number of rulesets found in all), and when more follow, a last
// line "Next cursor: …".
func FormatListPage(r Result) string {
	if len(r.Rulesets) == 0 {
		return FormatList(nil) + nextLine(r)
	}
	return formatItems(fmt.Sprintf("Found %d ruleset(s):\n\n", r.Total), r.Rulesets) + nextLine(r)
}

// FormatSearchPage renders a page of search_rulesets as FormatListPage does.
func FormatSearchPage(pattern string, r Result) string {
	if len(r.Rulesets) == 0 {
		return FormatSearch(pattern, nil) + nextLine(r)
	}
	return formatItems(fmt.Sprintf("Found %d ruleset(s) matching '%s':\n\n", r.Total, pattern), r.Rulesets) + nextLine(r)
}

func nextLine(r Result) string {
	if r.NextCursor == "" {
		return ""
	}
	return "Next cursor: " + r.NextCursor + "\n"
}
