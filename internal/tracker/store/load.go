package store

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/sudocode/sudocode/internal/tracker"
)

// A rebuild puts every record of the files into empty tables. Through the
// put functions' upserts, one statement per row, and then whole-table
// passes for the links' done flags, the blocked flags and the tallies, a
// rebuild of 100,000 issues took over ten seconds. During a rebuild the put
// functions hand their rows to a loader instead; it derives the flags and
// the tallies from the records in memory, then writes each table once, in
// primary-key order (each row appends to its B-tree), many rows per INSERT.

// loader holds a rebuild's rows until every record is put.
type loader struct {
	issues   []loadIssue
	specs    []loadSpec
	feedback []loadFeedback
	rels     []loadRel
	puts     int            // items put so far
	lastPut  map[string]int // item id → its last put: links from it put before are replaced
}

type loadIssue struct {
	rec  *tracker.IssueRecord
	line []byte
}

type loadSpec struct {
	rec  *tracker.SpecRecord
	line []byte
}

type loadFeedback struct {
	rec  *tracker.Feedback
	line []byte
}

type loadRel struct {
	tracker.Relationship
	put int // the put that stored it
}

func newLoader(issues, specs, feedback int) *loader {
	return &loader{
		issues:   make([]loadIssue, 0, issues),
		specs:    make([]loadSpec, 0, specs),
		feedback: make([]loadFeedback, 0, feedback),
		lastPut:  make(map[string]int, issues+specs),
	}
}

// putRels replaces the links from an item, as the upserts of a change do.
func (l *loader) putRels(from string, rels []tracker.Relationship) {
	l.lastPut[from] = l.puts
	for _, r := range rels {
		l.rels = append(l.rels, loadRel{r, l.puts})
	}
	l.puts++
}

// links is the rels table's content: the links that no later put of
// their source replaced, one per key (the last put), in key order.
func (l *loader) links() []loadRel {
	live := l.rels[:0]
	for _, r := range l.rels {
		if p, ok := l.lastPut[r.From]; !ok || r.put >= p {
			live = append(live, r)
		}
	}
	slices.SortStableFunc(live, func(a, b loadRel) int { return compareRelKeys(a.Relationship, b.Relationship) })
	out := live[:0]
	for i, r := range live {
		if i+1 < len(live) && compareRelKeys(r.Relationship, live[i+1].Relationship) == 0 {
			continue // a later put of the same key replaced it
		}
		out = append(out, r)
	}
	return out
}

// compareRelKeys orders links as the rels table's primary key.
func compareRelKeys(a, b tracker.Relationship) int {
	return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(string(a.Type), string(b.Type)), strings.Compare(a.To, b.To))
}

// doneItems says whether each item is done; an id that is both an issue
// and a spec is done as the issue (putRelSQL's coalesce). An id missing
// from it is unknown and blocks nothing.
func (l *loader) doneItems() map[string]bool {
	done := make(map[string]bool, len(l.issues)+len(l.specs))
	for _, s := range l.specs {
		done[s.rec.ID] = s.rec.Status.Done()
	}
	for _, i := range l.issues {
		done[i.rec.ID] = i.rec.Status.Done()
	}
	return done
}

// blockedItems is blockedCTE computed in memory: the sources of blocking
// links to unfinished items, and their descendants through parent-child.
func blockedItems(links []loadRel, done map[string]bool) map[string]bool {
	children := map[string][]string{}
	var queue []string
	for _, r := range links {
		if r.Type == tracker.RelParentChild {
			children[r.From] = append(children[r.From], r.To)
		}
		if r.Type.Blocking() && isOpen(done, r.To) {
			queue = append(queue, r.From)
		}
	}
	blocked := map[string]bool{}
	for len(queue) > 0 {
		id := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if blocked[id] {
			continue
		}
		blocked[id] = true
		queue = append(queue, children[id]...)
	}
	return blocked
}

// isOpen is a link target's to_done flag negated: a known item not done.
func isOpen(done map[string]bool, id string) bool {
	d, ok := done[id]
	return ok && !d
}

// write stores every row put, with the links' done flags, the blocked
// flags and the tallies.
func (l *loader) write(t *Tx) error {
	done := l.doneItems()
	links := l.links()
	blocked := blockedItems(links, done)
	tally := map[string]int{}
	flag := func(id string) int64 {
		if blocked[id] {
			return 1
		}
		return 0
	}
	slices.SortFunc(l.issues, func(a, b loadIssue) int { return strings.Compare(a.rec.ID, b.rec.ID) })
	err := insertRows(t, `INSERT INTO issues (id, uuid, title, description, status, type, priority, assignee, parent_id, created_ns, updated_ns, closed_ns, line, hash, blocked) VALUES `,
		15, len(l.issues), func(n int, a []any) []any {
			r, line := l.issues[n].rec, l.issues[n].line
			b := flag(r.ID)
			tally["issues.state:"+string(r.Status)+":"+strconv.FormatInt(b, 10)]++
			tally["issues.type:"+string(r.Type)]++
			return append(a, r.ID, r.UUID, r.Title, r.Description, string(r.Status), string(r.Type), int64(r.Priority), r.Assignee, r.ParentID,
				r.CreatedAt.UnixNano(), r.UpdatedAt.UnixNano(), nanos(r.ClosedAt), line, lineHash(line), b)
		})
	if err != nil {
		return err
	}
	slices.SortFunc(l.specs, func(a, b loadSpec) int { return strings.Compare(a.rec.ID, b.rec.ID) })
	err = insertRows(t, `INSERT INTO specs (id, uuid, title, description, status, type, priority, file_path, parent_id, created_ns, updated_ns, line, blocked) VALUES `,
		13, len(l.specs), func(n int, a []any) []any {
			r, line := l.specs[n].rec, l.specs[n].line
			b := flag(r.ID)
			tally["specs.state:"+string(r.Status)+":"+strconv.FormatInt(b, 10)]++
			tally["specs.type:"+string(r.Type)]++
			return append(a, r.ID, r.UUID, r.Title, r.Description, string(r.Status), string(r.Type), int64(r.Priority), r.FilePath, r.ParentID,
				r.CreatedAt.UnixNano(), r.UpdatedAt.UnixNano(), line, b)
		})
	if err != nil {
		return err
	}
	err = insertRows(t, `INSERT INTO rels (from_id, to_id, type, from_type, to_type, created_ns, created_by, to_done) VALUES `,
		8, len(links), func(n int, a []any) []any {
			r := links[n]
			tally["rels.type:"+string(r.Type)]++
			toDone := int64(1)
			if isOpen(done, r.To) {
				toDone = 0
			}
			return append(a, r.From, r.To, string(r.Type), string(r.FromType), string(r.ToType), r.CreatedAt.UnixNano(), r.CreatedBy, toDone)
		})
	if err != nil {
		return err
	}
	slices.SortFunc(l.feedback, func(a, b loadFeedback) int { return strings.Compare(a.rec.ID, b.rec.ID) })
	err = insertRows(t, `INSERT INTO feedback (id, issue_id, spec_id, type, status, anchor_status, created_ns, line) VALUES `,
		8, len(l.feedback), func(n int, a []any) []any {
			f, line := l.feedback[n].rec, l.feedback[n].line
			return append(a, f.ID, f.IssueID, f.SpecID, string(f.Type), string(f.Status), string(f.Anchor.AnchorStatus), f.CreatedAt.UnixNano(), line)
		})
	if err != nil {
		return err
	}
	keys := slices.Sorted(maps.Keys(tally))
	if _, err := t.tx.ExecContext(t.ctx, tallyTable); err != nil {
		return cacheErr(err)
	}
	return insertRows(t, `INSERT INTO tally (k, n) VALUES `, 2, len(keys), func(n int, a []any) []any {
		return append(a, keys[n], int64(tally[keys[n]]))
	})
}

// rowsPerInsert is how many rows one INSERT of a rebuild carries: few
// enough to stay far below SQLite's limit of 32,766 parameters.
const rowsPerInsert = 256

// insertRows runs head (an INSERT up to its VALUES) for n rows of width
// columns, the values of row n appended to a by row.
func insertRows(t *Tx, head string, width, n int, row func(n int, a []any) []any) error {
	args := make([]any, 0, width*rowsPerInsert)
	for start := 0; start < n; start += rowsPerInsert {
		end := min(start+rowsPerInsert, n)
		args = args[:0]
		for i := start; i < end; i++ {
			args = row(i, args)
		}
		if _, err := t.exec(head+placeholders(width, end-start), args...); err != nil {
			return cacheErr(err)
		}
	}
	return nil
}

// placeholders is the VALUES list of rows tuples of width parameters.
func placeholders(width, rows int) string {
	tuple := "(" + strings.Repeat("?,", width-1) + "?)"
	return strings.Repeat(tuple+",", rows-1) + tuple
}
