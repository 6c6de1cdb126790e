package store

import (
	"cmp"
	"container/heap"
	"errors"
	"runtime"
	"slices"
	"sync"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// The store reads the tracked files with the domain's codec, adding what
// only the store knows: a spec's file_path must obey the body rule
// (bodypath.go) in its clean form, and no two specs may share a body, since
// a change of either would replace the other's. Any bad line stops the
// command with an error naming the file and the line.

// parseIssues reads issue records from the file named name.
func parseIssues(name string, data []byte) ([]tracker.IssueRecord, error) {
	recs, err := tracker.ParseIssues(data, (*tracker.IssueRecord).Validate)
	return recs, recordErr(name, err)
}

func parseFeedback(name string, data []byte) ([]tracker.Feedback, error) {
	recs, err := tracker.ParseFeedback(data, (*tracker.Feedback).Validate)
	return recs, recordErr(name, err)
}

// parseSpecs reads spec records from the file named name: each record on
// its own, then that no two share a body.
func parseSpecs(name string, data []byte) ([]tracker.SpecRecord, error) {
	recs, err := parseSpecLines(name, data)
	if err != nil {
		return nil, err
	}
	return recs, uniqueBodies([]specsOf{{name, recs}})
}

func parseSpecLines(name string, data []byte) ([]tracker.SpecRecord, error) {
	recs, err := tracker.ParseSpecs(data, func(r *tracker.SpecRecord) error {
		if err := r.Validate(); err != nil {
			return err
		}
		if r.FilePath == "" {
			return errors.New("no file_path")
		}
		return checkRecordPath(r.FilePath)
	})
	return recs, recordErr(name, err)
}

type specsOf struct {
	file string
	recs []tracker.SpecRecord
}

// uniqueBodies refuses two specs that name the same body.
func uniqueBodies(files []specsOf) error {
	bodyOf := map[string]string{} // bodyKey → spec id
	for _, f := range files {
		for _, r := range f.recs {
			k := bodyKey(r.FilePath)
			if other, ok := bodyOf[k]; ok {
				return fault.New(fault.Invalid, "%s: spec %s has file_path %s, which is also the body of %s", f.file, r.ID, r.FilePath, other).
					WithHint("give one of them another file_path, then run the command again")
			}
			bodyOf[k] = r.ID
		}
	}
	return nil
}

// recordErr turns the codec's error into the store's: invalid input naming
// the file, with a hint to fix the line.
func recordErr(name string, err error) error {
	var le *tracker.LineError
	if !errors.As(err, &le) {
		return err
	}
	return fault.New(fault.Invalid, "%s line %d is not a valid record: %v", name, le.Line, le.Err).
		WithHint("correct the line by hand, then run the command again; deleting it loses the record it holds. A merge conflict git left there is repaired by the tracker itself while its blocks are whole (<<<<<<<, =======, >>>>>>>)")
}

// shardContent is what one shard file holds once parsed.
type shardContent struct {
	path     string
	sum      fileSum         // of the file's bytes
	strays   map[string]bool // the ids of its records that belong in another shard (nil: none, the usual case)
	issues   []tracker.IssueRecord
	specs    []tracker.SpecRecord
	feedback []tracker.Feedback
}

// readFiles reads every shard file of the tracker in dir, parsing them on
// every core, and returns the records of each kind sorted by id. A record
// in another shard than its id's (a merge renamed it) is read as any
// other: the rebuild that follows writes it where it belongs.
func readFiles(dir string) (issues []tracker.IssueRecord, specs []tracker.SpecRecord, feedback []tracker.Feedback, sums map[string]fileSum, err error) {
	rs, err := openRecords(dir)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	defer rs.Close()
	stats, err := rs.stats()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var paths []string
	for _, k := range tracker.RecordKinds {
		paths = append(paths, shardsOf(stats, k)...)
	}
	got := make([]shardContent, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				got[i], errs[i] = readShard(rs, paths[i])
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, nil, nil, err
		}
	}
	dropLeftovers(got)
	if err := uniqueAcross(got); err != nil {
		return nil, nil, nil, nil, err
	}
	bodies := make([]specsOf, 0, len(got))
	sums = make(map[string]fileSum, len(got))
	for _, c := range got {
		sums[c.path] = c.sum
		bodies = append(bodies, specsOf{c.path, c.specs})
	}
	if err := uniqueBodies(bodies); err != nil {
		return nil, nil, nil, nil, err
	}
	issues = mergeByID(got, func(c *shardContent) []tracker.IssueRecord { return c.issues }, func(r *tracker.IssueRecord) string { return r.ID })
	specs = mergeByID(got, func(c *shardContent) []tracker.SpecRecord { return c.specs }, func(r *tracker.SpecRecord) string { return r.ID })
	feedback = mergeByID(got, func(c *shardContent) []tracker.Feedback { return c.feedback }, func(r *tracker.Feedback) string { return r.ID })
	return issues, specs, feedback, sums, nil
}

func readShard(rs *records, p string) (shardContent, error) {
	c := shardContent{path: p}
	data, err := rs.read(p)
	if err != nil {
		return c, err
	}
	c.sum = sumOf(data)
	switch k, _ := tracker.KindOfFile(p); k {
	case tracker.IssueRecords:
		c.issues, err = parseIssues(p, data)
	case tracker.SpecRecords:
		c.specs, err = parseSpecLines(p, data)
	default:
		c.feedback, err = parseFeedback(p, data)
	}
	c.findStrays()
	return c, err
}

// uniqueAcross refuses an id or a uuid held by two shard files of a kind
// (each file was checked on its own by the codec). An id sits in its own
// shard's file unless its record is misplaced, so ids are compared across
// files only for the misplaced ones; uuids, which say nothing of the
// file, are all compared.
func uniqueAcross(files []shardContent) error {
	type key struct{ kind, what, value string }
	holder := map[key]string{} // → the file seen holding it
	claim := func(file string, k key) error {
		if other, ok := holder[k]; ok {
			return fault.New(fault.Invalid, "%s and %s both hold the %s %s %q", other, file, k.kind, k.what, k.value).
				WithHint("remove one of the two lines (a merge left both?), then run the command again")
		}
		holder[k] = file
		return nil
	}
	misplaced := map[key]bool{}
	for _, f := range files {
		k, _ := tracker.KindOfFile(f.path)
		for id := range f.strays {
			misplaced[key{recordNoun[k], "id", id}] = true
		}
	}
	idClaim := func(file string, k key) error {
		if !misplaced[k] {
			return nil
		}
		return claim(file, k)
	}
	for _, f := range files {
		for _, r := range f.issues {
			if err := cmp.Or(idClaim(f.path, key{"issue", "id", r.ID}), claim(f.path, key{"issue", "uuid", r.UUID})); err != nil {
				return err
			}
		}
		for _, r := range f.specs {
			if err := cmp.Or(idClaim(f.path, key{"spec", "id", r.ID}), claim(f.path, key{"spec", "uuid", r.UUID})); err != nil {
				return err
			}
		}
		for _, r := range f.feedback {
			if err := idClaim(f.path, key{"feedback", "id", r.ID}); err != nil {
				return err
			}
		}
	}
	return nil
}

// mergeByID merges the records of one kind from every file, each file's
// sorted by id (sorted first if a hand edit left it out of order), into
// one list sorted by id: a merge of sorted runs moves each record once.
func mergeByID[T any](files []shardContent, of func(*shardContent) []T, id func(*T) string) []T {
	var runs [][]T
	total := 0
	for i := range files {
		run := of(&files[i])
		if len(run) == 0 {
			continue
		}
		if !slices.IsSortedFunc(run, func(a, b T) int { return cmp.Compare(id(&a), id(&b)) }) {
			slices.SortFunc(run, func(a, b T) int { return cmp.Compare(id(&a), id(&b)) })
		}
		runs = append(runs, run)
		total += len(run)
	}
	out := make([]T, 0, total)
	h := &runHeap[T]{runs: runs, id: id}
	heap.Init(h)
	for h.Len() > 0 {
		run := h.runs[0]
		out = append(out, run[0])
		if len(run) == 1 {
			heap.Pop(h)
			continue
		}
		h.runs[0] = run[1:]
		heap.Fix(h, 0)
	}
	return out
}

// runHeap orders sorted runs by their first record's id.
type runHeap[T any] struct {
	runs [][]T
	id   func(*T) string
}

func (h *runHeap[T]) Len() int           { return len(h.runs) }
func (h *runHeap[T]) Less(i, j int) bool { return h.id(&h.runs[i][0]) < h.id(&h.runs[j][0]) }
func (h *runHeap[T]) Swap(i, j int)      { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *runHeap[T]) Push(x any)         { h.runs = append(h.runs, x.([]T)) }
func (h *runHeap[T]) Pop() any {
	last := h.runs[len(h.runs)-1]
	h.runs = h.runs[:len(h.runs)-1]
	return last
}

// recordNoun names a record of each kind in messages.
var recordNoun = map[tracker.RecordKind]string{tracker.IssueRecords: "issue", tracker.SpecRecords: "spec", tracker.FeedbackRecords: "feedback"}

// findStrays notes the records of the file that belong in another shard.
func (c *shardContent) findStrays() {
	k, _ := tracker.KindOfFile(c.path)
	note := func(id string) {
		if tracker.ShardFile(k, id) != c.path {
			if c.strays == nil {
				c.strays = map[string]bool{}
			}
			c.strays[id] = true
		}
	}
	for _, r := range c.issues {
		note(r.ID)
	}
	for _, r := range c.specs {
		note(r.ID)
	}
	for _, r := range c.feedback {
		note(r.ID)
	}
}
