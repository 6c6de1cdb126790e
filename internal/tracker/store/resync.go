package store

import (
	"bytes"
	"encoding/json"
	"hash/crc32"
	"path"
	"strings"
	"sync"

	"github.com/sudocode/sudocode/internal/tracker"
)

// After a pull, a checkout or a hand edit, the cache brings in only the
// lines that changed, instead of rebuilding from every line: each changed
// shard file's lines are compared, by id and hash, with the hashes the
// cache keeps of the lines it holds from that shard. Anything unusual (a
// line out of order or in the wrong shard, a record that does not decode,
// a uuid or a spec body now held twice, or a change to most of the lines)
// falls back to the full rebuild, which also gives the exact error.

// castagnoli is made on first use: most commands hash no line.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// lineHash identifies a line's content: two independent CRCs, both
// computed in hardware, so hashing a 100 MB file takes milliseconds.
func lineHash(line []byte) int64 {
	return int64(uint64(crc32.Checksum(line, castagnoli()))<<32 | uint64(crc32.ChecksumIEEE(line)))
}

// fileSum identifies a file's bytes: its size and two CRCs over them, so
// that a rebuild knows which files it would write as they already are
// without reading them again.
type fileSum struct {
	size       int64
	crcC, crcI uint32
}

func (s *fileSum) add(b []byte) {
	s.size += int64(len(b))
	s.crcC = crc32.Update(s.crcC, castagnoli(), b)
	s.crcI = crc32.Update(s.crcI, crc32.IEEETable, b)
}

func sumOf(data []byte) fileSum {
	var s fileSum
	s.add(data)
	return s
}

type fileLine struct {
	id   string
	line []byte
}

// shardDiff is what changed in one shard file against the cache.
type shardDiff struct {
	file    string
	kind    tracker.RecordKind
	lines   int // in the file now
	changed []fileLine
	removed []string
	uuids   []string // of the changed records (issues and specs)
	bodies  []string // file_path of the changed specs
}

// resync applies the changes of the shard files to the cache; done false
// means the caller must rebuild instead.
func (t *Tx) resync(files []string) (done bool, err error) {
	var diffs []shardDiff
	total, changes := 0, 0
	for _, f := range files {
		d, ok, err := t.diffShard(f)
		if err != nil || !ok {
			return false, err
		}
		diffs = append(diffs, d)
		total += d.lines
		changes += len(d.changed) + len(d.removed)
	}
	if changes > total/10+100 {
		return false, nil // a bulk load is faster
	}
	for i := range diffs {
		if ok, err := t.applyShard(&diffs[i]); err != nil || !ok {
			return false, err
		}
	}
	if ok, err := t.stillUnique(diffs); err != nil || !ok {
		return false, err
	}
	for _, d := range diffs {
		if err := t.recordStat(d.file); err != nil {
			return false, err
		}
	}
	return true, nil
}

// diffShard compares shard file f with the cache's rows of that shard.
func (t *Tx) diffShard(f string) (d shardDiff, ok bool, err error) {
	d.file = f
	d.kind, _ = tracker.KindOfFile(f)
	shard := strings.TrimSuffix(path.Base(f), ".jsonl")
	data, err := t.rs.read(f)
	if err != nil {
		return d, false, err
	}
	var lines []fileLine
	for rest := data; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return d, false, nil // no final newline: not a file this tracker wrote
		}
		line := rest[:i+1]
		rest = rest[i+1:]
		id, ok := lineID(line)
		if !ok || tracker.ShardOf(id) != shard || len(lines) > 0 && id <= lines[len(lines)-1].id {
			return d, false, nil
		}
		lines = append(lines, fileLine{id, line})
	}
	d.lines = len(lines)
	rows, err := t.tx.QueryContext(t.ctx, `SELECT id, hash FROM `+tableOf[d.kind]+` WHERE shard = ? ORDER BY id`, shard)
	if err != nil {
		return d, false, cacheErr(err)
	}
	defer rows.Close()
	n := 0 // lines[:n] are matched
	for rows.Next() {
		var id string
		var h int64
		if err := rows.Scan(&id, &h); err != nil {
			return d, false, cacheErr(err)
		}
		for n < len(lines) && lines[n].id < id {
			d.changed = append(d.changed, lines[n]) // new here
			n++
		}
		if n < len(lines) && lines[n].id == id {
			if lineHash(lines[n].line) != h {
				d.changed = append(d.changed, lines[n])
			}
			n++
			continue
		}
		d.removed = append(d.removed, id)
	}
	if err := rows.Err(); err != nil {
		return d, false, cacheErr(err)
	}
	d.changed = append(d.changed, lines[n:]...)
	return d, true, nil
}

// applyShard drops the records a shard lost and puts the ones it changed.
func (t *Tx) applyShard(d *shardDiff) (ok bool, err error) {
	for _, id := range d.removed {
		if err := t.drop(d.kind, id); err != nil {
			return false, err
		}
	}
	for _, fl := range d.changed {
		var err error
		switch d.kind {
		case tracker.IssueRecords:
			recs, perr := tracker.ParseIssues(fl.line, (*tracker.IssueRecord).Validate)
			if perr != nil || len(recs) != 1 || recs[0].ID != fl.id {
				return false, nil
			}
			err = t.putIssue(&recs[0])
			d.uuids = append(d.uuids, recs[0].UUID)
		case tracker.SpecRecords:
			recs, perr := parseSpecLines(d.file, fl.line)
			if perr != nil || len(recs) != 1 || recs[0].ID != fl.id {
				return false, nil
			}
			err = t.putSpec(&recs[0])
			d.uuids = append(d.uuids, recs[0].UUID)
			d.bodies = append(d.bodies, recs[0].FilePath)
		default:
			recs, perr := tracker.ParseFeedback(fl.line, (*tracker.Feedback).Validate)
			if perr != nil || len(recs) != 1 || recs[0].ID != fl.id {
				return false, nil
			}
			err = t.putFeedback(&recs[0])
		}
		if err != nil {
			return false, err
		}
		if bytes.Equal(t.lines[d.file][fl.id], fl.line) {
			delete(t.lines[d.file], fl.id) // the file already holds it
		}
	}
	if len(t.lines[d.file]) == 0 {
		delete(t.lines, d.file)
	}
	return true, nil
}

// stillUnique checks what a file-by-file change cannot: that no uuid is
// now held by two records, and no body by two specs.
func (t *Tx) stillUnique(diffs []shardDiff) (bool, error) {
	uuids := map[tracker.RecordKind][]string{}
	for _, d := range diffs {
		uuids[d.kind] = append(uuids[d.kind], d.uuids...)
	}
	for k, us := range uuids {
		if len(us) == 0 {
			continue
		}
		// One scan for them all: an index of every uuid would cost every
		// rebuild more than this rare check.
		arg, _ := json.Marshal(us)
		n, err := t.count(`SELECT count(*) FROM (SELECT uuid FROM `+tableOf[k]+` WHERE uuid IN (SELECT value FROM json_each(?)) GROUP BY uuid HAVING count(*) > 1)`, string(arg))
		if err != nil || n > 0 {
			return false, err
		}
	}
	for _, d := range diffs {
		for _, p := range d.bodies {
			if strings.ToLower(p) != strings.Map(asciiLower, p) {
				return false, nil // SQLite's lower() folds ASCII only: the rebuild checks it
			}
			if n, err := t.count(`SELECT count(*) FROM specs WHERE lower(file_path) = ?`, bodyKey(p)); err != nil || n > 1 {
				return false, err
			}
		}
	}
	return true, nil
}

func asciiLower(r rune) rune {
	if 'A' <= r && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

func (t *Tx) count(q string, args ...any) (int, error) {
	var n int
	err := t.tx.QueryRowContext(t.ctx, q, args...).Scan(&n)
	return n, cacheErr(err)
}

// drop removes a record the files no longer hold; links to it then block
// nothing, as links to any unknown id.
func (t *Tx) drop(k tracker.RecordKind, id string) error {
	if k == tracker.FeedbackRecords {
		_, err := t.exec(`DELETE FROM feedback WHERE id = ?`, id)
		return cacheErr(err)
	}
	t.seed(id)
	if err := t.seedChildren(id); err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM rels WHERE from_id = ?`, `DELETE FROM ` + tableOf[k] + ` WHERE id = ?`} {
		if _, err := t.exec(q, id); err != nil {
			return cacheErr(err)
		}
	}
	return t.markDone(id, true)
}
