package tracker

import (
	"fmt"
	"hash/crc32"
	"path"
	"strings"
)

// The records live in shard files, so that a change rewrites a small file
// whatever the size of the tracker, and two branches that add records
// rarely touch the same file:
//
//	records/issues/3f.jsonl    issues whose id hashes to shard 3f (of 00 to ff)
//	records/specs/07.jsonl     specs
//	records/feedback/1a.jsonl  feedback
//
// Each shard is a JSONL file like the single files of the first layout:
// one canonical record per line, sorted by id, a final newline. A record's
// shard is a pure function of its id, so an id never moves. A shard file
// appears with its first record and is never removed, only emptied (when
// its last record moves out after a merge renamed it): git merges an edit
// on one branch with an emptied file on the other through the merge
// driver, but an edit with a deleted file is a conflict.
const (
	RecordsDir = "records"
	Shards     = 256
)

// RecordKind is a kind of record: the three kinds have one directory of shards
// each (and one file each in the first layout).
type RecordKind int

// The kinds of record.
const (
	IssueRecords RecordKind = iota
	SpecRecords
	FeedbackRecords
)

// RecordKinds lists every kind, in the order the files are read.
var RecordKinds = []RecordKind{IssueRecords, SpecRecords, FeedbackRecords}

// Dir is the kind's directory under RecordsDir, e.g. "issues".
func (k RecordKind) Dir() string {
	switch k {
	case IssueRecords:
		return "issues"
	case SpecRecords:
		return "specs"
	case FeedbackRecords:
		return "feedback"
	case ActivityRecords:
		return ActivityDir
	}
	return fmt.Sprintf("RecordKind(%d)", int(k))
}

// LegacyFile is the kind's single file of the first layout, e.g.
// "issues.jsonl": a tracker that still has it is migrated to shards.
func (k RecordKind) LegacyFile() string { return k.Dir() + ".jsonl" }

// ShardOf is the shard of a record id: two hex digits, 00 to ff.
func ShardOf(id string) string { return shardName(int(crc32.ChecksumIEEE([]byte(id)) % Shards)) }

// ShardFileName is the name of shard n's file in a kind's directory,
// e.g. "3f.jsonl".
func ShardFileName(n int) string { return shardName(n) + ".jsonl" }

const hexDigits = "0123456789abcdef"

func shardName(n int) string { return string([]byte{hexDigits[n/16], hexDigits[n%16]}) }

// ShardFile is the path, relative to the tracker's directory and with
// slashes, of the shard file holding the record of the kind with id.
func ShardFile(k RecordKind, id string) string {
	return path.Join(RecordsDir, k.Dir(), ShardOf(id)+".jsonl")
}

// KindOfFile returns the kind of a tracked JSONL file from its path
// (slashes or not, relative to any directory): a shard file
// records/<kind>/<xx>.jsonl or a first-layout file <kind>.jsonl.
func KindOfFile(p string) (RecordKind, bool) {
	p = strings.ReplaceAll(p, `\`, "/")
	base, dir := path.Base(p), path.Base(path.Dir(p))
	parent := path.Base(path.Dir(path.Dir(p)))
	for _, k := range RecordKinds {
		if base == k.LegacyFile() {
			return k, true
		}
		if dir == k.Dir() && parent == RecordsDir && isShardName(base) {
			return k, true
		}
	}
	return 0, false
}

// ShardOfFileName is the shard whose file is named base ("3f.jsonl" is
// 0x3f): two lower-case hex digits (checked on every file listed, so
// without fmt).
func ShardOfFileName(base string) (int, bool) {
	name, ok := strings.CutSuffix(base, ".jsonl")
	if !ok || len(name) != 2 {
		return 0, false
	}
	hi, lo := strings.IndexByte(hexDigits, name[0]), strings.IndexByte(hexDigits, name[1])
	return hi*16 + lo, hi >= 0 && lo >= 0
}

func isShardName(base string) bool {
	_, ok := ShardOfFileName(base)
	return ok
}
