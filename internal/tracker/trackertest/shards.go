package trackertest

import (
	"fmt"

	"github.com/sudocode/sudocode/internal/tracker"
)

// IDsInShard returns n distinct ids prefix-0000, prefix-0001, … (four hex
// digits, counting up, so a test always gets the same ids) whose shard
// (tracker.ShardOf) is shard, for tests that need records in one shard
// file or in different ones.
func IDsInShard(prefix, shard string, n int) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		if i > 0xffff {
			panic(fmt.Sprintf("IDsInShard: no %d ids %s-xxxx in shard %q", n, prefix, shard))
		}
		if id := fmt.Sprintf("%s-%04x", prefix, i); tracker.ShardOf(id) == shard {
			out = append(out, id)
		}
	}
	return out
}
