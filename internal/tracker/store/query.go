package store

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
)

// blockedCTE defines blocked(id): every item with an unfinished blocker of
// its own (a blocks or depends-on target that is not done) or inherited
// from an ancestor through parent-child.
const blockedCTE = `WITH RECURSIVE
blocked(id) AS (
	SELECT from_id FROM rels WHERE type IN ('blocks', 'depends-on') AND to_done = 0
	UNION
	-- CROSS JOIN keeps blocked outermost, so each step is an index lookup
	SELECT r.to_id FROM blocked b CROSS JOIN rels r ON r.from_id = b.id AND r.type = 'parent-child')
`

// where builds a conjunction of conditions with their arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return "1"
	}
	return strings.Join(w.conds, " AND ")
}

// compacts runs a query whose columns are id, title, status, priority,
// type, description.
func (v view) compacts(query string, args ...any) ([]tracker.Compact, error) {
	return v.firstCompacts(query, args, nil, math.MaxInt)
}

func (v view) count(query string, args ...any) (int, error) {
	var n int
	err := v.q.QueryRowContext(v.ctx, query, args...).Scan(&n)
	return n, cacheErr(err)
}

const compactCols = `id, title, status, priority, type, description`

// IssueFilter selects issues; zero fields select everything.
type IssueFilter struct {
	Status, Type, Assignee string
	Priority               *int
	Limit                  int
}

// DefaultListLimit is how many items a list returns unless told otherwise.
const DefaultListLimit = 50

// ListIssues returns compact issues, highest priority then oldest first.
func (r *Repo) ListIssues(ctx context.Context, f IssueFilter) (tracker.IssueList, error) {
	var w where
	if f.Status != "" {
		if _, err := tracker.ParseEnum("status", f.Status, tracker.IssueStatuses); err != nil {
			return tracker.IssueList{}, err
		}
		w.add("status = ?", f.Status)
	}
	if f.Type != "" {
		if _, err := tracker.ParseEnum("type", f.Type, tracker.IssueTypes); err != nil {
			return tracker.IssueList{}, err
		}
		w.add("type = ?", f.Type)
	}
	if err := addPriority(&w, f.Priority); err != nil {
		return tracker.IssueList{}, err
	}
	if f.Assignee != "" {
		w.add("assignee = ?", f.Assignee)
	}
	limit := listLimit(f.Limit)
	v, err := r.read(ctx)
	if err != nil {
		return tracker.IssueList{}, err
	}
	total, err := v.count(`SELECT count(*) FROM issues WHERE `+w.sql(), w.args...)
	if err != nil {
		return tracker.IssueList{}, err
	}
	items, err := v.compacts(`SELECT `+compactCols+` FROM issues WHERE `+w.sql()+` ORDER BY priority, created_ns, id LIMIT ?`, append(w.args, limit)...)
	if err != nil {
		return tracker.IssueList{}, err
	}
	return tracker.IssueList{Issues: items, Total: total, Truncated: total > len(items), Hint: cutHint(total, len(items), "--status, --type, --priority or --assignee")}, nil
}

// SpecFilter selects specs.
type SpecFilter struct {
	Status, Type string
	Priority     *int
	Limit        int
}

// ListSpecs returns compact specs, highest priority then oldest first.
func (r *Repo) ListSpecs(ctx context.Context, f SpecFilter) (tracker.SpecList, error) {
	var w where
	if f.Status != "" {
		if _, err := tracker.ParseEnum("status", f.Status, tracker.SpecStatuses); err != nil {
			return tracker.SpecList{}, err
		}
		w.add("status = ?", f.Status)
	}
	if f.Type != "" {
		if _, err := tracker.ParseEnum("type", f.Type, tracker.SpecTypes); err != nil {
			return tracker.SpecList{}, err
		}
		w.add("type = ?", f.Type)
	}
	if err := addPriority(&w, f.Priority); err != nil {
		return tracker.SpecList{}, err
	}
	limit := listLimit(f.Limit)
	v, err := r.read(ctx)
	if err != nil {
		return tracker.SpecList{}, err
	}
	total, err := v.count(`SELECT count(*) FROM specs WHERE `+w.sql(), w.args...)
	if err != nil {
		return tracker.SpecList{}, err
	}
	items, err := v.compacts(`SELECT `+compactCols+` FROM specs WHERE `+w.sql()+` ORDER BY priority, created_ns, id LIMIT ?`, append(w.args, limit)...)
	if err != nil {
		return tracker.SpecList{}, err
	}
	return tracker.SpecList{Specs: items, Total: total, Truncated: total > len(items), Hint: cutHint(total, len(items), "--status, --type or --priority")}, nil
}

// FeedbackFilter selects feedback; Stale selects stale anchors only.
type FeedbackFilter struct {
	IssueID, SpecID, Type, Status string
	Stale                         bool
	Limit                         int
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
	if f.Type != "" {
		if _, err := tracker.ParseEnum("feedback type", f.Type, tracker.FeedbackTypes); err != nil {
			return tracker.FeedbackList{}, err
		}
		w.add("type = ?", f.Type)
	}
	if f.Status != "" {
		if _, err := tracker.ParseEnum("status", f.Status, tracker.FeedbackStatuses); err != nil {
			return tracker.FeedbackList{}, err
		}
		w.add("status = ?", f.Status)
	}
	if f.Stale {
		w.add("anchor_status = 'stale'")
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
	fbs, err := linesWhere[tracker.Feedback](v, "feedback", w.sql()+` ORDER BY created_ns, id LIMIT ?`, append(w.args, limit)...)
	if err != nil {
		return tracker.FeedbackList{}, err
	}
	items := make([]tracker.CompactFeedback, len(fbs))
	for i, fb := range fbs {
		items[i] = tracker.CompactFeedback{ID: fb.ID, IssueID: fb.IssueID, SpecID: fb.SpecID, Type: fb.Type, Status: fb.Status,
			AnchorStatus: fb.Anchor.AnchorStatus, LineNumber: fb.Anchor.LineNumber, Content: tracker.Shorten(fb.Content)}
	}
	return tracker.FeedbackList{Feedback: items, Total: total, Truncated: total > len(items), Hint: cutHint(total, len(items), "--issue, --spec, --type or --status")}, nil
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

func cutHint(total, shown int, filters string) *string {
	if total <= shown {
		return nil
	}
	h := fmt.Sprintf("showing %d of %d; narrow with %s, or raise --limit", shown, total, filters)
	return &h
}

// ReadyOptions select ready work.
type ReadyOptions struct {
	Limit         int // default 10
	Priority      *int
	Assignee      string
	Issues, Specs bool
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
	v, err := r.read(ctx)
	if err != nil {
		return tracker.ReadyResult{}, err
	}
	blocked, err := v.blockedSet()
	if err != nil {
		return tracker.ReadyResult{}, err
	}
	unblocked := func(id string) bool { return !blocked[id] }
	var res tracker.ReadyResult
	if o.Issues {
		iw := w
		iw.add("status = 'open'")
		if o.Assignee != "" {
			iw.add("assignee = ?", o.Assignee)
		}
		items, err := v.firstCompacts(`SELECT `+compactCols+` FROM issues WHERE `+iw.sql()+
			` ORDER BY priority, created_ns, id`, iw.args, unblocked, limit)
		if err != nil {
			return res, err
		}
		res.Issues = &items
	}
	if o.Specs {
		sw := w
		sw.add("status IN ('draft', 'review')")
		items, err := v.firstCompacts(`SELECT `+compactCols+` FROM specs WHERE `+sw.sql()+
			` ORDER BY priority, created_ns, id`, sw.args, unblocked, limit)
		if err != nil {
			return res, err
		}
		res.Specs = &items
	}
	return res, nil
}

// blockedSet is the set of blocked ids (see blockedCTE), computed once per
// cache generation.
func (v view) blockedSet() (map[string]bool, error) {
	var gen string
	if err := v.q.QueryRowContext(v.ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = 'gen'), '')`).Scan(&gen); err != nil {
		return nil, cacheErr(err)
	}
	m := &v.r.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.set != nil && m.gen == gen {
		return m.set, nil
	}
	ids, err := v.ids(blockedCTE + `SELECT id FROM blocked`)
	if err != nil {
		return nil, err
	}
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	m.gen, m.set = gen, set
	return set, nil
}

// firstCompacts streams a compact query's rows and returns the first limit
// whose id keep accepts (every row when keep is nil).
func (v view) firstCompacts(query string, args []any, keep func(string) bool, limit int) ([]tracker.Compact, error) {
	rows, err := v.q.QueryContext(v.ctx, query, args...)
	if err != nil {
		return nil, cacheErr(err)
	}
	defer rows.Close()
	out := []tracker.Compact{}
	for len(out) < limit && rows.Next() {
		var c tracker.Compact
		var desc *string
		if err := rows.Scan(&c.ID, &c.Title, &c.Status, &c.Priority, &c.Type, &desc); err != nil {
			return nil, cacheErr(err)
		}
		if keep != nil && !keep(c.ID) {
			continue
		}
		if desc != nil {
			c.Description = tracker.Shorten(*desc)
		}
		out = append(out, c)
	}
	return out, cacheErr(rows.Err())
}

// BlockedOptions select blocked work.
type BlockedOptions struct {
	Issues, Specs bool
	Limit         int
}

// Blocked returns unfinished items that something blocks, each with its
// blockers; issues whose status is blocked are included even when no link
// explains it.
func (r *Repo) Blocked(ctx context.Context, o BlockedOptions) (tracker.BlockedResult, error) {
	limit := listLimit(o.Limit)
	v, err := r.read(ctx)
	if err != nil {
		return tracker.BlockedResult{}, err
	}
	var res tracker.BlockedResult
	load := func(query string) (*[]tracker.BlockedItem, error) {
		items, err := v.compacts(query, limit)
		if err != nil {
			return nil, err
		}
		out := make([]tracker.BlockedItem, len(items))
		for i, c := range items {
			bs, err := tracker.Blockers(v, c.ID)
			if err != nil {
				return nil, err
			}
			out[i] = tracker.BlockedItem{Compact: c, BlockedBy: bs}
		}
		return &out, nil
	}
	if o.Issues {
		if res.Issues, err = load(blockedCTE + `SELECT ` + compactCols + ` FROM issues WHERE status != 'closed'
			AND (status = 'blocked' OR id IN (SELECT id FROM blocked)) ORDER BY priority, created_ns, id LIMIT ?`); err != nil {
			return res, err
		}
	}
	if o.Specs {
		if res.Specs, err = load(blockedCTE + `SELECT ` + compactCols + ` FROM specs WHERE status IN ('draft', 'review')
			AND id IN (SELECT id FROM blocked) ORDER BY priority, created_ns, id LIMIT ?`); err != nil {
			return res, err
		}
	}
	return res, nil
}

// countBy returns counts of a column's values, with every known value present.
func (v view) countBy(table, col string, known []string) (map[string]int, int, error) {
	out := map[string]int{}
	for _, k := range known {
		out[k] = 0
	}
	rows, err := v.q.QueryContext(v.ctx, `SELECT `+col+`, count(*) FROM `+table+` GROUP BY `+col)
	if err != nil {
		return nil, 0, cacheErr(err)
	}
	defer rows.Close()
	total := 0
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, 0, cacheErr(err)
		}
		out[k] = n
		total += n
	}
	return out, total, cacheErr(rows.Err())
}

func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

const (
	readyIssuesSQL   = blockedCTE + `SELECT id FROM issues WHERE status = 'open' AND id NOT IN (SELECT id FROM blocked) ORDER BY priority, created_ns, id`
	blockedIssuesSQL = blockedCTE + `SELECT id FROM issues WHERE status != 'closed' AND (status = 'blocked' OR id IN (SELECT id FROM blocked)) ORDER BY priority, created_ns, id`
	readySpecsSQL    = blockedCTE + `SELECT count(*) FROM specs WHERE status IN ('draft', 'review') AND id NOT IN (SELECT id FROM blocked)`
)

// Stats counts everything, with activity over the last 7 days.
func (r *Repo) Stats(ctx context.Context) (tracker.Stats, error) {
	v, err := r.read(ctx)
	if err != nil {
		return tracker.Stats{}, err
	}
	var s tracker.Stats
	if s.Specs.ByStatus, s.Specs.Total, err = v.countBy("specs", "status", names(tracker.SpecStatuses)); err != nil {
		return s, err
	}
	if s.Specs.ByType, _, err = v.countBy("specs", "type", names(tracker.SpecTypes)); err != nil {
		return s, err
	}
	if s.Specs.Ready, err = v.count(readySpecsSQL); err != nil {
		return s, err
	}
	if s.Issues.ByStatus, s.Issues.Total, err = v.countBy("issues", "status", names(tracker.IssueStatuses)); err != nil {
		return s, err
	}
	if s.Issues.ByType, _, err = v.countBy("issues", "type", names(tracker.IssueTypes)); err != nil {
		return s, err
	}
	if s.Issues.Ready, err = v.count(`SELECT count(*) FROM (` + readyIssuesSQL + `)`); err != nil {
		return s, err
	}
	if s.Issues.Blocked, err = v.count(`SELECT count(*) FROM (` + blockedIssuesSQL + `)`); err != nil {
		return s, err
	}
	if s.Relationships.ByType, s.Relationships.Total, err = v.countBy("rels", "type", names(tracker.RelTypes)); err != nil {
		return s, err
	}
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
	var s tracker.Status
	if s.Specs.ByStatus, s.Specs.Total, err = v.countBy("specs", "status", names(tracker.SpecStatuses)); err != nil {
		return s, err
	}
	if s.Issues.ByStatus, s.Issues.Total, err = v.countBy("issues", "status", names(tracker.IssueStatuses)); err != nil {
		return s, err
	}
	ready, err := v.ids(readyIssuesSQL)
	if err != nil {
		return s, err
	}
	blocked, err := v.ids(blockedIssuesSQL)
	if err != nil {
		return s, err
	}
	s.Issues.Ready, s.Issues.Blocked = len(ready), len(blocked)
	if verbose {
		s.Issues.ReadyIDs, s.Issues.BlockedIDs = orEmpty(ready), orEmpty(blocked)
	}
	return s, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
