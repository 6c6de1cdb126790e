package store

import (
	"context"
	"database/sql"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/cursor"
	"github.com/sudocode/sudocode/internal/tracker"
)

// where builds a conjunction of conditions with their arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// clone is a copy of w that conditions can be added to without changing w.
func (w where) clone() where {
	return where{conds: slices.Clone(w.conds), args: slices.Clone(w.args)}
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return "1"
	}
	return strings.Join(w.conds, " AND ")
}

func (v view) count(query string, args ...any) (int, error) {
	var n int
	err := v.q.QueryRowContext(v.ctx, query, args...).Scan(&n)
	return n, cacheErr(err)
}

// compactCols are the columns of a compact item and its sort key.
const compactCols = `id, title, status, priority, type, description, created_ns`

// IssueFilter selects issues; zero fields select everything. Cursor, the
// next_cursor of a previous page of the same query, starts after it.
type IssueFilter struct {
	Status, Type, Assignee string
	Priority               *int
	Limit                  int
	Cursor                 string
	// HideClosed leaves out closed issues unless Status asks for them: the
	// CLI's default (as gh and bd list), not the MCP tool's.
	HideClosed bool
}

// DefaultListLimit is how many items a list returns unless told otherwise.
const DefaultListLimit = 50

// ListIssues returns compact issues, highest priority then oldest first.
func (r *Repo) ListIssues(ctx context.Context, f IssueFilter) (tracker.IssueList, error) {
	var w where
	if err := addEnum(&w, "status", "status", f.Status, tracker.IssueStatuses); err != nil {
		return tracker.IssueList{}, err
	}
	if err := addEnum(&w, "type", "type", f.Type, tracker.IssueTypes); err != nil {
		return tracker.IssueList{}, err
	}
	if err := addPriority(&w, f.Priority); err != nil {
		return tracker.IssueList{}, err
	}
	if f.Assignee != "" {
		w.add("assignee = ?", f.Assignee)
	}
	hide := f.HideClosed && f.Status == ""
	scope := cursor.For("issues", f.Status, f.Type, f.Priority, f.Assignee, hide)
	after, err := decodePrio(f.Cursor, scope)
	if err != nil {
		return tracker.IssueList{}, err
	}
	v, err := r.read(ctx)
	if err != nil {
		return tracker.IssueList{}, err
	}
	hidden := 0
	if hide {
		closed := w.clone()
		closed.add(issueDoneSQL)
		if hidden, err = v.count(`SELECT count(*) FROM issues WHERE `+closed.sql(), closed.args...); err != nil {
			return tracker.IssueList{}, err
		}
		w.add("NOT " + issueDoneSQL)
	}
	p, err := v.prioPage("issues", w, after, listLimit(f.Limit), scope)
	if err != nil {
		return tracker.IssueList{}, err
	}
	return tracker.IssueList{Issues: p.items, Total: p.total, Truncated: p.more, Hint: cutHint(p.total, len(p.items), p.more, "--status, --type, --priority or --assignee"),
		NextCursor: p.next, Page: p.page, HiddenClosed: hidden}, nil
}

// prioPage is a page of a priority-ordered list.
type prioPage struct {
	items []tracker.Compact
	total int
	more  bool
	next  *string
	page  tracker.Page
}

// prioPage reads the page of table's rows matching w after the position
// after (nil: the first page), limit items long, with the total of w.
func (v view) prioPage(table string, w where, after *prioKey, limit int, scope cursor.Scope) (prioPage, error) {
	var p prioPage
	var err error
	if p.total, err = v.count(`SELECT count(*) FROM `+table+` WHERE `+w.sql(), w.args...); err != nil {
		return p, err
	}
	skipped := 0
	if after != nil {
		bw := w.clone()
		upToPrio(&bw, after)
		if skipped, err = v.count(`SELECT count(*) FROM `+table+` WHERE `+bw.sql(), bw.args...); err != nil {
			return p, err
		}
	}
	pw := w.clone()
	afterPrio(&pw, after)
	query, args, most := `SELECT `+compactCols+` FROM `+table+` WHERE `+pw.sql(), pw.args, limit+1
	// A page that is the whole rest of the list (a limit of at least the
	// total) is read in the table's order and sorted here: walking the
	// index in the list's order looks up every row in the table at
	// random, which costs twice the scan and the sort.
	rest := p.total - skipped
	whole := limit >= rest
	if whole {
		most = math.MaxInt
	} else {
		query += ` ORDER BY priority, created_ns, id LIMIT ?`
		args = append(args, limit+1)
	}
	items, keys, err := v.firstCompacts(query, args, nil, most, max(min(limit, rest), 0)+1)
	if err != nil {
		return p, err
	}
	if whole {
		items, keys = sortByKey(items, keys)
	}
	p.more = len(items) > limit
	p.items, keys = items[:min(len(items), limit)], keys[:min(len(keys), limit)]
	p.page, p.next = pageOf(scope, keys, skipped, p.more)
	return p, nil
}

// SpecFilter selects specs; Cursor as in IssueFilter.
type SpecFilter struct {
	Status, Type string
	Priority     *int
	Limit        int
	Cursor       string
}

// ListSpecs returns compact specs, highest priority then oldest first.
func (r *Repo) ListSpecs(ctx context.Context, f SpecFilter) (tracker.SpecList, error) {
	var w where
	if err := addEnum(&w, "status", "status", f.Status, tracker.SpecStatuses); err != nil {
		return tracker.SpecList{}, err
	}
	if err := addEnum(&w, "type", "type", f.Type, tracker.SpecTypes); err != nil {
		return tracker.SpecList{}, err
	}
	if err := addPriority(&w, f.Priority); err != nil {
		return tracker.SpecList{}, err
	}
	scope := cursor.For("specs", f.Status, f.Type, f.Priority)
	after, err := decodePrio(f.Cursor, scope)
	if err != nil {
		return tracker.SpecList{}, err
	}
	v, err := r.read(ctx)
	if err != nil {
		return tracker.SpecList{}, err
	}
	p, err := v.prioPage("specs", w, after, listLimit(f.Limit), scope)
	if err != nil {
		return tracker.SpecList{}, err
	}
	return tracker.SpecList{Specs: p.items, Total: p.total, Truncated: p.more, Hint: cutHint(p.total, len(p.items), p.more, "--status, --type or --priority"),
		NextCursor: p.next, Page: p.page}, nil
}

// FeedbackFilter selects feedback; Stale selects stale anchors only;
// Cursor as in IssueFilter.
type FeedbackFilter struct {
	IssueID, SpecID, Type, Status string
	Stale                         bool
	Limit                         int
	Cursor                        string
}

// ListFeedback returns compact feedback, oldest first.
func (r *Repo) ListFeedback(ctx context.Context, f FeedbackFilter) (tracker.FeedbackList, error) {
	var w where
	if f.IssueID != "" {
		w.add("issue_id = ?", f.IssueID)
	}
	if f.SpecID != "" {
		w.add("spec_id = ?", f.SpecID)
	}
	if err := addEnum(&w, "type", "feedback type", f.Type, tracker.FeedbackTypes); err != nil {
		return tracker.FeedbackList{}, err
	}
	if err := addEnum(&w, "status", "status", f.Status, tracker.FeedbackStatuses); err != nil {
		return tracker.FeedbackList{}, err
	}
	if f.Stale {
		w.add("anchor_status = 'stale'")
	}
	scope := cursor.For("feedback", f.IssueID, f.SpecID, f.Type, f.Status, f.Stale)
	var after *timeKey
	if f.Cursor != "" {
		after = new(timeKey)
		if err := cursor.Decode(f.Cursor, scope, after); err != nil {
			return tracker.FeedbackList{}, err
		}
		if err := checkID(after.ID); err != nil {
			return tracker.FeedbackList{}, err
		}
	}
	limit := listLimit(f.Limit)
	v, err := r.read(ctx)
	if err != nil {
		return tracker.FeedbackList{}, err
	}
	total, err := v.count(`SELECT count(*) FROM feedback WHERE `+w.sql(), w.args...)
	if err != nil {
		return tracker.FeedbackList{}, err
	}
	skipped := 0
	pw := w.clone()
	if after != nil {
		bw := w.clone()
		bw.add("(created_ns, id) <= (?, ?)", after.C, after.ID)
		if skipped, err = v.count(`SELECT count(*) FROM feedback WHERE `+bw.sql(), bw.args...); err != nil {
			return tracker.FeedbackList{}, err
		}
		pw.add("(created_ns, id) > (?, ?)", after.C, after.ID)
	}
	fbs, keys, err := v.feedbackPage(pw.sql()+` ORDER BY created_ns, id LIMIT ?`, append(pw.args, limit+1)...)
	if err != nil {
		return tracker.FeedbackList{}, err
	}
	more := len(fbs) > limit
	fbs, keys = fbs[:min(len(fbs), limit)], keys[:min(len(keys), limit)]
	items := make([]tracker.CompactFeedback, len(fbs))
	for i, fb := range fbs {
		items[i] = tracker.CompactFeedback{ID: fb.ID, IssueID: fb.IssueID, SpecID: fb.SpecID, Type: fb.Type, Status: fb.Status,
			AnchorStatus: fb.Anchor.AnchorStatus, LineNumber: fb.Anchor.LineNumber, Content: tracker.Shorten(fb.Content)}
	}
	page, next := pageOf(scope, keys, skipped, more)
	return tracker.FeedbackList{Feedback: items, Total: total, Truncated: more, Hint: cutHint(total, len(items), more, "--issue, --spec, --type or --status"),
		NextCursor: next, Page: page}, nil
}

// feedbackPage reads feedback matching a condition with the key of each.
func (v view) feedbackPage(cond string, args ...any) ([]tracker.Feedback, []timeKey, error) {
	rows, err := v.q.QueryContext(v.ctx, `SELECT created_ns, line FROM feedback WHERE `+cond, args...)
	if err != nil {
		return nil, nil, cacheErr(err)
	}
	defer rows.Close()
	var out []tracker.Feedback
	var keys []timeKey
	for rows.Next() {
		var created int64
		var line []byte
		if err := rows.Scan(&created, &line); err != nil {
			return nil, nil, cacheErr(err)
		}
		fb, err := decodeLine[tracker.Feedback](line)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, fb)
		keys = append(keys, timeKey{C: created, ID: fb.ID})
	}
	return out, keys, cacheErr(rows.Err())
}

// addEnum adds col = v when v is given, after checking it is one of valid
// (field names it in the error).
func addEnum[T ~string](w *where, col, field, v string, valid []T) error {
	if v == "" {
		return nil
	}
	if _, err := tracker.ParseEnum(field, v, valid); err != nil {
		return err
	}
	w.add(col+" = ?", v)
	return nil
}

func addPriority(w *where, p *int) error {
	if p == nil {
		return nil
	}
	if err := tracker.CheckPriority(*p); err != nil {
		return err
	}
	w.add("priority = ?", *p)
	return nil
}

func listLimit(n int) int {
	if n <= 0 {
		return DefaultListLimit
	}
	return n
}

// ReadyOptions select ready work; Cursor, the next_cursor of a previous
// page of the same query, continues both lists after it.
type ReadyOptions struct {
	Limit         int // default 10
	Priority      *int
	Assignee      string
	Issues, Specs bool
	Cursor        string
}

// DefaultReadyLimit is ready's default size.
const DefaultReadyLimit = 10

// Ready returns open issues (and draft or review specs) with no unfinished
// blocker, direct or inherited: highest priority, then oldest, first.
func (r *Repo) Ready(ctx context.Context, o ReadyOptions) (tracker.ReadyResult, error) {
	limit := o.Limit
	if limit <= 0 {
		limit = DefaultReadyLimit
	}
	var w where
	if err := addPriority(&w, o.Priority); err != nil {
		return tracker.ReadyResult{}, err
	}
	scope := cursor.For("ready", o.Priority, o.Assignee, o.Issues, o.Specs)
	pos, err := decodeTwo(o.Cursor, scope)
	if err != nil {
		return tracker.ReadyResult{}, err
	}
	v, err := r.read(ctx)
	if err != nil {
		return tracker.ReadyResult{}, err
	}
	var res tracker.ReadyResult
	var next twoKeys
	if o.Issues {
		iw := w.clone()
		iw.add(issueReadySQL + " AND blocked = 0")
		if o.Assignee != "" {
			iw.add("assignee = ?", o.Assignee)
		}
		items, err := v.twoPage("issues", iw, pos.Issues, pos.IssuesDone, nil, limit, &next.Issues, &next.IssuesDone)
		if err != nil {
			return res, err
		}
		res.Issues = &items
	}
	if o.Specs {
		sw := w.clone()
		sw.add(specReadySQL + " AND blocked = 0")
		items, err := v.twoPage("specs", sw, pos.Specs, pos.SpecsDone, nil, limit, &next.Specs, &next.SpecsDone)
		if err != nil {
			return res, err
		}
		res.Specs = &items
	}
	res.NextCursor = next.cursor(scope, o.Issues, o.Specs)
	return res, nil
}

// decodeTwo reads the cursor of a two-list result; the zero position
// (both lists from their start) without one.
func decodeTwo(c string, scope cursor.Scope) (twoKeys, error) {
	var k twoKeys
	if c == "" {
		return k, nil
	}
	if err := cursor.Decode(c, scope, &k); err != nil {
		return k, err
	}
	for _, p := range []*prioKey{k.Issues, k.Specs} {
		if p != nil {
			if err := checkID(p.ID); err != nil {
				return k, err
			}
		}
	}
	return k, nil
}

// twoPage reads one list of a two-list result: up to limit items matching
// w after the position at (nil: its start; done: nothing is left), and
// into *blockers (unless nil) their blockers columns. It sets *next and
// *nextDone to the position after the page.
func (v view) twoPage(table string, w where, at *prioKey, done bool, blockers *[][]byte, limit int, next **prioKey, nextDone *bool) ([]tracker.Compact, error) {
	if done {
		*nextDone = true
		return []tracker.Compact{}, nil
	}
	w = w.clone()
	afterPrio(&w, at)
	cols := compactCols
	if blockers != nil {
		cols += `, blockers`
	}
	query := `SELECT ` + cols + ` FROM ` + table + ` WHERE ` + w.sql() + ` ORDER BY priority, created_ns, id`
	items, keys, err := v.firstCompacts(query, w.args, blockers, limit+1, 0)
	if err != nil {
		return nil, err
	}
	if len(items) <= limit {
		*nextDone = true
		return items, nil
	}
	*next = &keys[limit-1]
	if blockers != nil {
		*blockers = (*blockers)[:limit]
	}
	return items[:limit], nil
}

// cursor is the next cursor of a two-list result: nil when every list
// asked for is done.
func (k twoKeys) cursor(scope cursor.Scope, issues, specs bool) *string {
	if (!issues || k.IssuesDone) && (!specs || k.SpecsDone) {
		return nil
	}
	c := cursor.Encode(scope, k)
	return &c
}

// firstCompacts streams a query's rows (the columns compactCols, then the
// blockers column when blockers is not nil, into it) and returns the
// first limit, with the sort key of each; room is how many are expected,
// if known.
func (v view) firstCompacts(query string, args []any, blockers *[][]byte, limit, room int) ([]tracker.Compact, []prioKey, error) {
	rows, err := v.q.QueryContext(v.ctx, query, args...)
	if err != nil {
		return nil, nil, cacheErr(err)
	}
	defer rows.Close()
	out := make([]tracker.Compact, 0, room)
	keys := make([]prioKey, 0, room)
	for len(out) < limit && rows.Next() {
		var c tracker.Compact
		// Columns scanned into the driver's own types (int64, NullString)
		// take database/sql's direct path, not its reflection.
		var desc sql.NullString
		var prio, created int64
		dest := []any{&c.ID, &c.Title, &c.Status, &prio, &c.Type, &desc, &created}
		var bs []byte
		if blockers != nil {
			dest = append(dest, &bs)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, cacheErr(err)
		}
		c.Priority, c.Description = int(prio), tracker.Shorten(desc.String)
		if blockers != nil {
			*blockers = append(*blockers, bs)
		}
		out = append(out, c)
		keys = append(keys, prioKey{P: c.Priority, C: created, ID: c.ID})
	}
	return out, keys, cacheErr(rows.Err())
}

// BlockedOptions select blocked work; Cursor as in ReadyOptions.
type BlockedOptions struct {
	Issues, Specs bool
	Limit         int
	Cursor        string
}

// Blocked returns unfinished items that something blocks, each with its
// blockers; issues whose status is blocked are included even when no link
// explains it.
func (r *Repo) Blocked(ctx context.Context, o BlockedOptions) (tracker.BlockedResult, error) {
	limit := listLimit(o.Limit)
	scope := cursor.For("blocked", o.Issues, o.Specs)
	pos, err := decodeTwo(o.Cursor, scope)
	if err != nil {
		return tracker.BlockedResult{}, err
	}
	v, err := r.read(ctx)
	if err != nil {
		return tracker.BlockedResult{}, err
	}
	var res tracker.BlockedResult
	var next twoKeys
	// Each row's blockers are kept with it (blockers.go).
	var blockers [][]byte
	withBlockers := func(items []tracker.Compact) (*[]tracker.BlockedItem, error) {
		out := make([]tracker.BlockedItem, len(items))
		for i, c := range items {
			bs, err := decodeBlockers(blockers[i])
			if err != nil {
				return nil, err
			}
			out[i] = tracker.BlockedItem{Compact: c, BlockedBy: bs}
		}
		blockers = blockers[:0]
		return &out, nil
	}
	if o.Issues {
		var w where
		w.add(issueBlockedSQL)
		items, err := v.twoPage("issues", w, pos.Issues, pos.IssuesDone, &blockers, limit, &next.Issues, &next.IssuesDone)
		if err != nil {
			return res, err
		}
		if res.Issues, err = withBlockers(items); err != nil {
			return res, err
		}
	}
	if o.Specs {
		var w where
		w.add(specBlockedSQL)
		items, err := v.twoPage("specs", w, pos.Specs, pos.SpecsDone, &blockers, limit, &next.Specs, &next.SpecsDone)
		if err != nil {
			return res, err
		}
		if res.Specs, err = withBlockers(items); err != nil {
			return res, err
		}
	}
	res.NextCursor = next.cursor(scope, o.Issues, o.Specs)
	return res, nil
}

// Stats counts everything, with activity over the last 7 days. The counts
// are the cache's tallies (tally.go); the activity is a range of an index.
func (r *Repo) Stats(ctx context.Context) (tracker.Stats, error) {
	v, err := r.read(ctx)
	if err != nil {
		return tracker.Stats{}, err
	}
	c, err := v.tallies()
	if err != nil {
		return tracker.Stats{}, err
	}
	var s tracker.Stats
	s.Specs.ByStatus, s.Specs.Total = byStatus(c, "specs", tracker.SpecStatuses)
	s.Specs.ByType, _ = c.by("specs.type:", names(tracker.SpecTypes))
	s.Specs.Ready = ready(c, "specs", tracker.ReadySpecStatuses)
	s.Issues.ByStatus, s.Issues.Total = byStatus(c, "issues", tracker.IssueStatuses)
	s.Issues.ByType, _ = c.by("issues.type:", names(tracker.IssueTypes))
	s.Issues.Ready = ready(c, "issues", tracker.ReadyIssueStatuses)
	s.Issues.Blocked = c.blockedIssues()
	s.Relationships.ByType, s.Relationships.Total = c.by("rels.type:", names(tracker.RelTypes))
	since := r.now().Add(-7 * 24 * time.Hour).UnixNano()
	ra := &s.RecentActivity
	for _, c := range []struct {
		dst   *int
		query string
	}{
		{&ra.SpecsUpdated, `SELECT count(*) FROM specs WHERE updated_ns >= ?`},
		{&ra.IssuesUpdated, `SELECT count(*) FROM issues WHERE updated_ns >= ?`},
		{&ra.IssuesCreated, `SELECT count(*) FROM issues WHERE created_ns >= ?`},
		{&ra.IssuesClosed, `SELECT count(*) FROM issues WHERE closed_ns >= ?`},
	} {
		if *c.dst, err = v.count(c.query, since); err != nil {
			return s, err
		}
	}
	return s, nil
}

// Status is a short summary; verbose adds the ready and blocked ids.
func (r *Repo) Status(ctx context.Context, verbose bool) (tracker.Status, error) {
	v, err := r.read(ctx)
	if err != nil {
		return tracker.Status{}, err
	}
	c, err := v.tallies()
	if err != nil {
		return tracker.Status{}, err
	}
	var s tracker.Status
	s.Specs.ByStatus, s.Specs.Total = byStatus(c, "specs", tracker.SpecStatuses)
	s.Issues.ByStatus, s.Issues.Total = byStatus(c, "issues", tracker.IssueStatuses)
	s.Issues.Ready, s.Issues.Blocked = ready(c, "issues", tracker.ReadyIssueStatuses), c.blockedIssues()
	if !verbose {
		return s, nil
	}
	ready, err := v.ids(readyIssuesSQL)
	if err != nil {
		return s, err
	}
	blocked, err := v.ids(blockedIssuesSQL)
	if err != nil {
		return s, err
	}
	s.Issues.ReadyIDs, s.Issues.BlockedIDs = orEmpty(ready), orEmpty(blocked)
	return s, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
