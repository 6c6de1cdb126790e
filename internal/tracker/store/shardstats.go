package store

import (
	"encoding/binary"
	"hash/fnv"
	"path"
	"strconv"

	"github.com/sudocode/sudocode/internal/tracker"
)

// The cache knows each shard file by its size and modification time as it
// last read or wrote it, so that a pull, a checkout or a hand edit is seen
// by the next command. The comparison runs on every command and every MCP
// request, so it is kept small: one stat call per shard file, into a fixed
// array, and one comparison of the array's digest with the digest the
// cache keeps. Only when they differ does the cache read the stat of each
// file it knows (the shard_stats table) to find the files that changed.

// fileStamp is a shard file's size and modification time.
type fileStamp struct {
	size, mtime int64
	present     bool
}

// kinds is the number of record kinds (tracker.RecordKinds).
const kinds = 3

// shardStats holds the stamp of every shard file, by shardIndex.
type shardStats [kinds * tracker.Shards]fileStamp

// shardIndex is the place of a kind's shard in a shardStats.
func shardIndex(k tracker.RecordKind, shard int) int { return int(k)*tracker.Shards + shard }

// shardPath is the path, relative to the tracker directory, of the file at
// index i of a shardStats.
func shardPath(i int) string {
	return path.Join(tracker.RecordsDir, tracker.RecordKind(i/tracker.Shards).Dir(), tracker.ShardFileName(i%tracker.Shards))
}

// indexOfShard is the index of shard file p (as shardPath spells it), or
// false for any other path.
func indexOfShard(p string) (int, bool) {
	k, ok := tracker.KindOfFile(p)
	if !ok || path.Dir(p) != path.Join(tracker.RecordsDir, k.Dir()) {
		return 0, false
	}
	shard, ok := tracker.ShardOfFileName(path.Base(p))
	return shardIndex(k, shard), ok
}

// stat is the stamp at i as statOf writes it, "absent" for no file.
func (s *shardStats) stat(i int) string {
	if !s[i].present {
		return "absent"
	}
	return strconv.FormatInt(s[i].size, 10) + ":" + strconv.FormatInt(s[i].mtime, 10)
}

// files is every file present with its stat.
func (s *shardStats) files() map[string]string {
	out := map[string]string{}
	for i := range s {
		if s[i].present {
			out[shardPath(i)] = s.stat(i)
		}
	}
	return out
}

// paths lists the files present, in the layout's order (kinds, then shards).
func (s *shardStats) paths() []string {
	var out []string
	for i := range s {
		if s[i].present {
			out = append(out, shardPath(i))
		}
	}
	return out
}

// digest identifies the whole set of stamps: equal digests, same files.
func (s *shardStats) digest() string {
	h := fnv.New64a()
	var b [24]byte
	for i := range s {
		if !s[i].present {
			continue
		}
		binary.LittleEndian.PutUint64(b[0:], uint64(i))
		binary.LittleEndian.PutUint64(b[8:], uint64(s[i].size))
		binary.LittleEndian.PutUint64(b[16:], uint64(s[i].mtime))
		h.Write(b[:])
	}
	return strconv.FormatUint(h.Sum64(), 16)
}
