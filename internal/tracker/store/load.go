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
// functions hand their rows to a loader instead. It takes the links and
// the flags from the records as read, before the first row is written
// (making a record canonical changes neither its status nor which links it
// holds; the loader makes the links canonical as the put functions do),
// and writes each table once, in the files' order (the id order: each row
// appends to its B-tree), many rows per INSERT, counting the tallies as it
// goes.
//
// A goroutine of its own runs the INSERTs of the links, then those of the
// issues as they are put, so that encoding the records (the put functions'
// work, with the rows' values) and SQLite's work run at once; the other
// rows are written once every record is put. Until then the transaction is
// that writer's: during a rebuild the put functions do no SQL.

// loader takes a rebuild's rows from the put functions.
type loader struct {
	t        *Tx
	done     map[string]bool // item id → whether it is done; unknown ids block nothing
	blocked  map[string]bool // items with an unfinished blocker (blocked.go)
	blockers map[string]any  // the blocked items' blockers column (blockers.go)
	tally    map[string]int
	issues   []any        // the values of the issues put since the last INSERT sent
	inserts  chan rowsSQL // to the writer; nil once closed
	wrote    chan error   // the writer's result
	writeErr error
	specs    []loadSpec
	feedback []loadFeedback
}

// rowsSQL is one INSERT of many rows with its values.
type rowsSQL struct {
	query string
	args  []any
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

// newLoader starts the load of the records read: their links and flags,
// and the writer, which gets the links at once.
func newLoader(t *Tx, issues []tracker.IssueRecord, specs []tracker.SpecRecord, feedback int) *loader {
	links := linksOf(issues, specs)
	l := &loader{
		t:      t,
		tally:  map[string]int{},
		issues: make([]any, 0, issueCols*rowsPerInsert),
		// Room for every INSERT: the puts never wait for the writer.
		inserts:  make(chan rowsSQL, (len(links)+len(issues))/rowsPerInsert+2),
		wrote:    make(chan error, 1),
		specs:    make([]loadSpec, 0, len(specs)),
		feedback: make([]loadFeedback, 0, feedback),
	}
	l.done = make(map[string]bool, len(issues)+len(specs))
	for i := range specs {
		l.done[specs[i].ID] = specs[i].Status.Done()
	}
	for i := range issues {
		l.done[issues[i].ID] = issues[i].Status.Done() // an id both an issue and a spec is the issue (putRelSQL)
	}
	l.blocked = blockedItems(links, l.done)
	l.blockers = loadBlockers(links, l.done, l.blocked, issues, specs)
	go l.writeRows(l.inserts)
	l.sendLinks(links)
	return l
}

// linksOf is the rels table after putting every record in the rebuild's
// order, each record's links made canonical: a put replaces the links from
// its item, so a link that a record lists under another item survives
// only when that item was put before it; of two links of one key, the
// last put stays.
func linksOf(issues []tracker.IssueRecord, specs []tracker.SpecRecord) []tracker.Relationship {
	var all []loadRel
	lastPut := make(map[string]int, len(issues)+len(specs))
	put := func(from string, rels []tracker.Relationship) {
		n := len(lastPut)
		lastPut[from] = n
		for _, r := range tracker.NormalizeRelationships(rels) {
			all = append(all, loadRel{r, n})
		}
	}
	for i := range issues {
		put(issues[i].ID, issues[i].Relationships)
	}
	for i := range specs {
		put(specs[i].ID, specs[i].Relationships)
	}
	live := all[:0]
	for _, r := range all {
		if p, ok := lastPut[r.From]; !ok || r.put >= p {
			live = append(live, r)
		}
	}
	slices.SortStableFunc(live, func(a, b loadRel) int { return compareRelKeys(a.Relationship, b.Relationship) })
	out := make([]tracker.Relationship, 0, len(live))
	for i, r := range live {
		if i+1 < len(live) && compareRelKeys(r.Relationship, live[i+1].Relationship) == 0 {
			continue // a later put of the same key replaced it
		}
		out = append(out, r.Relationship)
	}
	return out
}

const (
	issuesInsert = `INSERT INTO issues (id, uuid, title, description, status, type, priority, assignee, parent_id, created_ns, updated_ns, closed_ns, line, shard, hash, blocked, blockers) VALUES `
	issueCols    = 17
)

// putIssue adds an issue's row to the next INSERT for the writer.
func (l *loader) putIssue(r *tracker.IssueRecord, line []byte) {
	blocked := l.flag(r.ID)
	l.tally["issues.state:"+string(r.Status)+":"+strconv.FormatInt(blocked, 10)]++
	l.tally["issues.type:"+string(r.Type)]++
	l.issues = append(l.issues, r.ID, r.UUID, r.Title, r.Description, string(r.Status), string(r.Type), int64(r.Priority), r.Assignee, r.ParentID,
		r.CreatedAt.UnixNano(), r.UpdatedAt.UnixNano(), nanos(r.ClosedAt), line, tracker.ShardOf(r.ID), lineHash(line), blocked, l.blockers[r.ID])
	if len(l.issues) == issueCols*rowsPerInsert {
		l.send(issuesInsert, issueCols, l.issues)
		l.issues = make([]any, 0, issueCols*rowsPerInsert)
	}
}

// sendLinks queues the INSERTs of the rels table.
func (l *loader) sendLinks(links []tracker.Relationship) {
	const width = 8
	for start := 0; start < len(links); start += rowsPerInsert {
		chunk := links[start:min(start+rowsPerInsert, len(links))]
		args := make([]any, 0, width*len(chunk))
		for i := range chunk {
			r := &chunk[i]
			l.tally["rels.type:"+string(r.Type)]++
			toDone := int64(1)
			if isOpen(l.done, r.To) {
				toDone = 0
			}
			args = append(args, r.From, r.To, string(r.Type), string(r.FromType), string(r.ToType), r.CreatedAt.UnixNano(), r.CreatedBy, toDone)
		}
		l.send(`INSERT INTO rels (from_id, to_id, type, from_type, to_type, created_ns, created_by, to_done) VALUES `, width, args)
	}
}

// send queues one INSERT of head with the values of rows width wide.
func (l *loader) send(head string, width int, args []any) {
	l.inserts <- rowsSQL{head + placeholders(width, len(args)/width), args}
}

// writeRows runs the INSERTs as they come; after an error it only drains
// them.
func (l *loader) writeRows(inserts <-chan rowsSQL) {
	var err error
	for in := range inserts {
		if err == nil {
			_, err = l.t.exec(in.query, in.args...)
		}
	}
	l.wrote <- cacheErr(err)
}

// finishWriter sends the last issues and waits for the writer; the
// transaction is the caller's again.
func (l *loader) finishWriter() error {
	if l.inserts == nil {
		return l.writeErr
	}
	if len(l.issues) > 0 {
		l.send(issuesInsert, issueCols, l.issues)
	}
	close(l.inserts)
	l.inserts = nil
	l.writeErr = <-l.wrote
	return l.writeErr
}

func (l *loader) flag(id string) int64 {
	if l.blocked[id] {
		return 1
	}
	return 0
}

// compareRelKeys orders links as the rels table's primary key.
func compareRelKeys(a, b tracker.Relationship) int {
	return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(string(a.Type), string(b.Type)), strings.Compare(a.To, b.To))
}

// blockedItems is the blocked flags computed in memory: the sources of blocking
// links to unfinished items, and their descendants through parent-child.
func blockedItems(links []tracker.Relationship, done map[string]bool) map[string]bool {
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

// write stores the specs and the feedback put, once the writer is done,
// then the tallies.
func (l *loader) write() error {
	if err := l.finishWriter(); err != nil {
		return err
	}
	t := l.t
	err := insertRows(t, `INSERT INTO specs (id, uuid, title, description, status, type, priority, file_path, parent_id, created_ns, updated_ns, line, shard, hash, blocked, blockers) VALUES `,
		16, len(l.specs), func(n int, a []any) []any {
			r, line := l.specs[n].rec, l.specs[n].line
			blocked := l.flag(r.ID)
			l.tally["specs.state:"+string(r.Status)+":"+strconv.FormatInt(blocked, 10)]++
			l.tally["specs.type:"+string(r.Type)]++
			return append(a, r.ID, r.UUID, r.Title, r.Description, string(r.Status), string(r.Type), int64(r.Priority), r.FilePath, r.ParentID,
				r.CreatedAt.UnixNano(), r.UpdatedAt.UnixNano(), line, tracker.ShardOf(r.ID), lineHash(line), blocked, l.blockers[r.ID])
		})
	if err != nil {
		return err
	}
	err = insertRows(t, `INSERT INTO feedback (id, issue_id, spec_id, type, status, anchor_status, created_ns, line, shard, hash) VALUES `,
		10, len(l.feedback), func(n int, a []any) []any {
			f, line := l.feedback[n].rec, l.feedback[n].line
			return append(a, f.ID, f.IssueID, f.SpecID, string(f.Type), string(f.Status), string(f.Anchor.AnchorStatus), f.CreatedAt.UnixNano(), line, tracker.ShardOf(f.ID), lineHash(line))
		})
	if err != nil {
		return err
	}
	if _, err := t.tx.ExecContext(t.ctx, tallyTable); err != nil {
		return cacheErr(err)
	}
	keys := slices.Sorted(maps.Keys(l.tally))
	return insertRows(t, `INSERT INTO tally (k, n) VALUES `, 2, len(keys), func(n int, a []any) []any {
		return append(a, keys[n], int64(l.tally[keys[n]]))
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
