package store

import (
	"bytes"
	"hash/crc32"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/tracker"
)

// After a pull, a checkout or a hand edit of issues.jsonl, the cache
// brings in only the lines that changed, instead of rebuilding from every
// line: the file's lines are compared, by id and hash, with the hashes the
// cache keeps of the lines it holds. Anything unusual (a line out of
// order, a duplicate, a record that does not decode, a changed uuid
// colliding, or a change to most of the file) falls back to the full
// rebuild, which also gives the exact error.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// lineHash identifies a line's content: two independent CRCs, both
// computed in hardware, so hashing a 100 MB file takes milliseconds.
func lineHash(line []byte) int64 {
	return int64(uint64(crc32.Checksum(line, castagnoli))<<32 | uint64(crc32.ChecksumIEEE(line)))
}

// syncIssues applies the changes of issues.jsonl to the cache; done false
// means the caller must rebuild instead.
func (t *Tx) syncIssues() (done bool, err error) {
	data, err := readTracked(filepath.Join(t.r.Dir, IssuesFile))
	if err != nil {
		return false, err
	}
	type fileLine struct {
		id   string
		line []byte
	}
	var lines []fileLine
	for rest := data; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return false, nil // no final newline: not a file this tracker wrote
		}
		line := rest[:i+1]
		rest = rest[i+1:]
		id, ok := lineID(line)
		if !ok || len(lines) > 0 && id <= lines[len(lines)-1].id {
			return false, nil
		}
		lines = append(lines, fileLine{id, line})
	}
	rows, err := t.tx.QueryContext(t.ctx, `SELECT id, hash FROM issues ORDER BY id`)
	if err != nil {
		return false, cacheErr(err)
	}
	var changed []fileLine
	var removed []string
	n := 0 // lines[:n] are matched
	for rows.Next() {
		var id string
		var h int64
		if err := rows.Scan(&id, &h); err != nil {
			rows.Close()
			return false, cacheErr(err)
		}
		for n < len(lines) && lines[n].id < id {
			changed = append(changed, lines[n]) // new here
			n++
		}
		if n < len(lines) && lines[n].id == id {
			if lineHash(lines[n].line) != h {
				changed = append(changed, lines[n])
			}
			n++
			continue
		}
		removed = append(removed, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, cacheErr(err)
	}
	changed = append(changed, lines[n:]...)
	if len(changed)+len(removed) > len(lines)/10+100 {
		return false, nil // a bulk load is faster
	}
	for _, id := range removed {
		if err := t.dropIssue(id); err != nil {
			return false, err
		}
	}
	var uuids []string
	for _, fl := range changed {
		recs, err := tracker.ParseIssues(fl.line, (*tracker.IssueRecord).Validate)
		if err != nil || len(recs) != 1 || recs[0].ID != fl.id {
			return false, nil
		}
		if err := t.putIssue(&recs[0]); err != nil {
			return false, err
		}
		if bytes.Equal(t.lines[IssuesFile][fl.id], fl.line) {
			delete(t.lines[IssuesFile], fl.id) // the file already holds it
		}
		uuids = append(uuids, recs[0].UUID)
	}
	for _, u := range uuids {
		var k int
		if err := t.tx.QueryRowContext(t.ctx, `SELECT count(*) FROM issues WHERE uuid = ?`, u).Scan(&k); err != nil {
			return false, cacheErr(err)
		}
		if k > 1 {
			return false, nil
		}
	}
	return true, t.recordStat(IssuesFile)
}

// dropIssue removes an issue the file no longer holds; links to it then
// block nothing, as links to any unknown id.
func (t *Tx) dropIssue(id string) error {
	t.seed(id)
	if err := t.seedChildren(id); err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM rels WHERE from_id = ?`, `DELETE FROM issues WHERE id = ?`} {
		if _, err := t.exec(q, id); err != nil {
			return cacheErr(err)
		}
	}
	return t.markDone(id, true)
}
