package tracker

import (
	"strings"
	"testing"
)

func TestShardsSpreadIDs(t *testing.T) {
	if got := ShardFile(IssueRecords, "sudocode-a3f2"); got != "records/issues/"+ShardOf("sudocode-a3f2")+".jsonl" {
		t.Errorf("ShardFile = %q", got)
	}
	seen := map[string]int{}
	for i := range 6400 {
		seen[ShardOf("sc-"+strings.Repeat("z", i%7)+string(rune('a'+i%26))+string(rune('0'+i%10))+string(rune('a'+i/260)))]++
	}
	if len(seen) != Shards {
		t.Errorf("6,400 ids fill %d of %d shards", len(seen), Shards)
	}
	for s := range seen {
		if !isShardName(s + ".jsonl") {
			t.Errorf("shard %q is not a shard name", s)
		}
	}
}

func TestShardOfKnownValues(t *testing.T) {
	// A change of the function moves records between files in every clone
	// (the next command moves them, see the store's rebuild), so it is made
	// on purpose or not at all. These values are CRC-32 (IEEE) of the id,
	// mod 256; from 64 shards to 256, a record stays in its file or moves
	// to one of three new ones.
	for id, want := range map[string]string{"": "00", "sudocode-a3f2": "b9", "bd-1": "bd"} {
		if got := ShardOf(id); got != want {
			t.Errorf("ShardOf(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestKindOfFile(t *testing.T) {
	for p, want := range map[string]RecordKind{
		"issues.jsonl":                        IssueRecords,
		".sudocode/specs.jsonl":               SpecRecords,
		"/x/.sudocode/feedback.jsonl":         FeedbackRecords,
		".sudocode/records/issues/3f.jsonl":   IssueRecords,
		"records/specs/00.jsonl":              SpecRecords,
		`.sudocode\records\feedback\1a.jsonl`: FeedbackRecords,
	} {
		if k, ok := KindOfFile(p); !ok || k != want {
			t.Errorf("KindOfFile(%q) = %v %v, want %v", p, k, ok, want)
		}
	}
	for _, p := range []string{"records/issues/100.jsonl", "records/issues/4.jsonl", "records/issues/3F.jsonl", "issues/3f.jsonl", "records/issues/3f.json", "records/other/3f.jsonl", "notes.jsonl"} {
		if k, ok := KindOfFile(p); ok {
			t.Errorf("KindOfFile(%q) = %v, want not a tracker file", p, k)
		}
	}
}
