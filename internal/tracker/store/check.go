package store

import (
	"cmp"
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
		WithHint("fix or remove the line (a leftover merge conflict?), then run the command again")
}

// shardContent is what one shard file holds once parsed.
type shardContent struct {
	path     string
	sum      fileSum // of the file's bytes
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
	var bodies []specsOf
	sums = make(map[string]fileSum, len(got))
	for _, c := range got {
		sums[c.path] = c.sum
		issues = append(issues, c.issues...)
		specs = append(specs, c.specs...)
		feedback = append(feedback, c.feedback...)
		bodies = append(bodies, specsOf{c.path, c.specs})
	}
	if err := uniqueAcross(got); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := uniqueBodies(bodies); err != nil {
		return nil, nil, nil, nil, err
	}
	slices.SortFunc(issues, func(a, b tracker.IssueRecord) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(specs, func(a, b tracker.SpecRecord) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(feedback, func(a, b tracker.Feedback) int { return cmp.Compare(a.ID, b.ID) })
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
	return c, err
}

// uniqueAcross refuses an id or a uuid held by two shard files of a kind
// (each file was checked on its own by the codec).
func uniqueAcross(files []shardContent) error {
	seen := map[[3]string]string{} // kind, what, key → file
	claim := func(file, kind, what, key string) error {
		k := [3]string{kind, what, key}
		if other, ok := seen[k]; ok {
			return fault.New(fault.Invalid, "%s and %s both hold the %s %s %q", other, file, kind, what, key).
				WithHint("remove one of the two lines (a merge left both?), then run the command again")
		}
		seen[k] = file
		return nil
	}
	for _, f := range files {
		for _, r := range f.issues {
			if err := cmp.Or(claim(f.path, "issue", "id", r.ID), claim(f.path, "issue", "uuid", r.UUID)); err != nil {
				return err
			}
		}
		for _, r := range f.specs {
			if err := cmp.Or(claim(f.path, "spec", "id", r.ID), claim(f.path, "spec", "uuid", r.UUID)); err != nil {
				return err
			}
		}
		for _, r := range f.feedback {
			if err := claim(f.path, "feedback", "id", r.ID); err != nil {
				return err
			}
		}
	}
	return nil
}
