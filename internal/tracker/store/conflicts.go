package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/gitx"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/merge"
)

// A clone whose git has no merge driver for the record files (see
// mergedriver.go) merges them as text: two branches that edited one record
// leave a record file with git's conflict markers, which no command can
// read. Deleting lines to get past it loses records, so the tracker repairs
// such a file itself, with the same three-way merge the driver runs: from
// the versions git keeps in its index while the conflict is unresolved
// (then the result is staged, as the driver's would have been); else, when
// a merge commit recorded the markers, from the versions it joined; else
// from the sides the markers enclose.

// Repair is a record file the tracker rewrote from a leftover conflict.
type Repair struct {
	File   string         `json:"file"`   // relative to the tracker directory, slash-separated
	Staged bool           `json:"staged"` // the conflict was git's, in the index: the result is staged
	From   string         `json:"from"`   // "index" (git's three versions), "history" (a merge commit's) or "markers"
	Rename []merge.Rename `json:"renamed"`
}

// conflictMarked reports whether data holds a line git's text merge
// writes: a record line always starts with '{', so any line starting with
// seven '<' is one.
func conflictMarked(data []byte) bool {
	return bytes.HasPrefix(data, []byte("<<<<<<<")) || bytes.Contains(data, []byte("\n<<<<<<<"))
}

// Conflicts lists the record files of the tracker in dir that hold git's
// conflict markers.
func Conflicts(dir string) ([]string, error) {
	rs, err := openRecords(dir)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	return conflictedFiles(rs)
}

func conflictedFiles(rs *records) ([]string, error) {
	stats, err := rs.stats()
	if err != nil {
		return nil, err
	}
	var files []string
	for _, k := range rs.legacy() {
		files = append(files, k.LegacyFile())
	}
	for _, k := range tracker.RecordKinds {
		files = append(files, shardsOf(stats, k)...)
	}
	activity, err := rs.activityShards()
	if err != nil {
		return nil, err
	}
	files = append(files, activity...)
	var marked []string
	for _, f := range files {
		data, err := rs.read(f)
		if err != nil {
			return nil, err
		}
		if conflictMarked(data) {
			marked = append(marked, f)
		}
	}
	slices.Sort(marked)
	return marked, nil
}

// RepairConflicts repairs every record file of the tracker holding git's
// conflict markers, under the tracker's lock, and brings the cache up to
// date. It is what any command does when it meets such a file; `doctor
// --fix` runs it on its own.
func (r *Repo) RepairConflicts(ctx context.Context) ([]Repair, error) {
	l, err := lockFile(filepath.Join(r.Dir, LockFile))
	if err != nil {
		return nil, lockErr(err)
	}
	defer l.unlock()
	done, err := r.repairConflicts(ctx)
	if err != nil {
		return done, err
	}
	return done, r.updateLocked(ctx, l, nil)
}

// repairConflicts is RepairConflicts with the lock held, without the
// cache's update.
func (r *Repo) repairConflicts(ctx context.Context) ([]Repair, error) {
	rs, err := openRecords(r.Dir)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	files, err := conflictedFiles(rs)
	if err != nil {
		return nil, err
	}
	var done []Repair
	for _, f := range files {
		rep, err := r.repairFile(ctx, rs, f)
		if err == errTornConflict {
			continue // the reader's error names the line to correct
		}
		if err != nil {
			return done, err
		}
		done = append(done, rep)
		r.notify(rep.notice())
	}
	return done, nil
}

// repairFile rewrites record file f (which holds conflict markers) as the
// merge of its sides.
func (r *Repo) repairFile(ctx context.Context, rs *records, f string) (Repair, error) {
	rep := Repair{File: f, From: "index", Rename: []merge.Rename{}}
	kind, err := merge.KindOf(f)
	if err != nil {
		return rep, err
	}
	base, ours, theirs, inIndex := r.indexSides(ctx, f)
	if !inIndex {
		data, err := rs.read(f)
		if err != nil {
			return rep, err
		}
		var found bool
		if base, ours, theirs, found = r.historySides(ctx, f, data); found {
			rep.From = "history"
		} else if base, ours, theirs, err = markerSides(data); err != nil {
			return rep, errTornConflict
		} else {
			rep.From = "markers"
		}
	}
	out, renames, err := merge.ThreeWay(kind, base, ours, theirs)
	if err != nil {
		return rep, fault.Wrap(fault.Invalid, err, "cannot merge the conflict in "+f).
			WithHint("fix the malformed line in the side named, then run the command again")
	}
	if err := rs.writeBytes(f, out); err != nil {
		return rep, err
	}
	if renames != nil {
		rep.Rename = renames
	}
	if inIndex {
		o := gitx.Options{Dir: r.Dir, Locks: true}
		rep.Staged = gitx.Run(ctx, o, nil, "add", "--", f) == nil
	}
	return rep, nil
}

func (rep Repair) notice() string {
	var b strings.Builder
	fmt.Fprintf(&b, "repaired the merge conflict in %s with the tracker's merge, keeping both sides' changes", path.Join(DirName, rep.File))
	if rep.Staged {
		b.WriteString(" (staged: commit to finish the merge)")
	}
	for _, rn := range rep.Rename {
		fmt.Fprintf(&b, "; renamed %s to %s (the id collided)", rn.Old, rn.New)
	}
	return b.String()
}

// indexSides returns the three versions git keeps of tracker file f while
// its merge is unresolved (stage 1 the base, 2 ours, 3 theirs; an absent
// stage is an empty file); ok false when f is not unmerged, or git is not
// there to ask.
func (r *Repo) indexSides(ctx context.Context, f string) (base, ours, theirs []byte, ok bool) {
	o := gitx.Options{Dir: r.Dir}
	out, err := gitx.Output(ctx, o, 1<<16, "ls-files", "-u", "-z", "--", f)
	if err != nil || len(out) == 0 {
		return nil, nil, nil, false
	}
	var sides [3][]byte
	for entry := range bytes.SplitSeq(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		// "<mode> <object> <stage>\t<path>"
		meta, _, _ := bytes.Cut(entry, []byte{'\t'})
		fields := strings.Fields(string(meta))
		if len(fields) != 3 || len(fields[2]) != 1 || fields[2][0] < '1' || fields[2][0] > '3' {
			return nil, nil, nil, false
		}
		blob, err := gitx.Output(ctx, o, maxRecordFile, "cat-file", "blob", fields[1])
		if err != nil {
			return nil, nil, nil, false
		}
		sides[fields[2][0]-'1'] = blob
	}
	return sides[0], sides[1], sides[2], true
}

// historySides returns the versions a merge commit joined when it
// recorded file f with its markers (data) as they are now: the last
// commit that changed f is a merge of two parents, and holds f as data.
// Ours is its first parent's f, theirs its second's, base their merge
// base's (absent: empty); found false when f's history is not that.
func (r *Repo) historySides(ctx context.Context, f string, data []byte) (base, ours, theirs []byte, found bool) {
	o := gitx.Options{Dir: r.Dir}
	out, err := gitx.Output(ctx, o, 1<<12, "log", "-1", "--format=%H %P", "--", f)
	commits := strings.Fields(string(out))
	if err != nil || len(commits) != 3 {
		return nil, nil, nil, false
	}
	blob := func(rev string) ([]byte, error) {
		return gitx.Output(ctx, o, maxRecordFile, "cat-file", "blob", rev+":./"+f)
	}
	if recorded, err := blob(commits[0]); err != nil || !bytes.Equal(recorded, data) {
		return nil, nil, nil, false // changed since: the markers may not be the merge's
	}
	if ours, err = blob(commits[1]); err != nil {
		return nil, nil, nil, false
	}
	if theirs, err = blob(commits[2]); err != nil {
		return nil, nil, nil, false
	}
	if mb, err := gitx.Output(ctx, o, 1<<12, "merge-base", commits[1], commits[2]); err == nil {
		base, _ = blob(strings.TrimSpace(string(mb))) // absent there: both sides added the file
	}
	return base, ours, theirs, true
}

// errTornConflict is a file whose conflict markers do not make whole
// blocks (a hand edit removed some): its sides cannot be told apart.
var errTornConflict = errors.New("conflict markers without whole blocks")

// maxRecordFile bounds a version of a record file read from git.
const maxRecordFile = 1 << 30

// markerSides splits a file with git's conflict markers into the three
// versions they stand for: the lines outside every conflict belong to all
// three; inside one, the lines after <<<<<<< are ours, after ||||||| (the
// diff3 style) the base's, after ======= theirs, up to >>>>>>>.
func markerSides(data []byte) (base, ours, theirs []byte, err error) {
	const (
		outside = iota
		inOurs
		inBase
		inTheirs
	)
	state := outside
	var sides [3]bytes.Buffer // base, ours, theirs
	n := 0
	for line := range bytes.Lines(data) {
		n++
		switch {
		case bytes.HasPrefix(line, []byte("<<<<<<<")):
			if state != outside {
				return nil, nil, nil, fmt.Errorf("line %d opens a conflict inside another", n)
			}
			state = inOurs
		case bytes.HasPrefix(line, []byte("|||||||")) && state == inOurs:
			state = inBase
		case bytes.HasPrefix(line, []byte("=======")) && (state == inOurs || state == inBase):
			state = inTheirs
		case bytes.HasPrefix(line, []byte(">>>>>>>")):
			if state != inTheirs {
				return nil, nil, nil, fmt.Errorf("line %d closes a conflict that has no =======", n)
			}
			state = outside
		default:
			switch state {
			case outside:
				for i := range sides {
					sides[i].Write(line)
				}
			case inOurs:
				sides[1].Write(line)
			case inBase:
				sides[0].Write(line)
			case inTheirs:
				sides[2].Write(line)
			}
		}
	}
	if state != outside {
		return nil, nil, nil, errors.New("a conflict is not closed by >>>>>>>")
	}
	return sides[0].Bytes(), sides[1].Bytes(), sides[2].Bytes(), nil
}
