package tracker

import (
	"strings"
	"testing"
)

func TestHashGrowsFromTheSamePrefix(t *testing.T) {
	uuid := NewUUID()
	prev := Hash(uuid, 4)
	for n := 5; n <= 8; n++ {
		h := Hash(uuid, n)
		if len(h) != n || !strings.HasPrefix(h, prev) {
			t.Fatalf("Hash(%s, %d) = %q, want %q extended", uuid, n, h, prev)
		}
		prev = h
	}
	if IssueID("sc", "a1b2") != "sc-a1b2" || SpecID("sc", "a1b2") != "sc-spec-a1b2" || FeedbackID("sc", "a1b2") != "sc-fb-a1b2" {
		t.Fatal("id forms")
	}
}

func TestHashLen(t *testing.T) {
	for _, c := range []struct{ count, want int }{{0, 4}, {499, 4}, {500, 5}, {19_999, 5}, {20_000, 6}, {600_000, 8}} {
		if got := HashLen(c.count); got != c.want {
			t.Errorf("HashLen(%d) = %d, want %d", c.count, got, c.want)
		}
	}
}

func TestUUIDsDiffer(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		u := NewUUID()
		if len(u) != 36 || u[14] != '4' || seen[u] {
			t.Fatalf("bad or repeated uuid %q", u)
		}
		seen[u] = true
	}
}

func TestParseEnumNamesTheChoices(t *testing.T) {
	_, err := ParseEnum("type", "nonsense", IssueTypes)
	if err == nil || err.Error() != `invalid type "nonsense": must be one of bug, feature, task, epic, chore` {
		t.Fatalf("err = %v", err)
	}
	if v, err := ParseEnum("status", "in_progress", IssueStatuses); err != nil || v != IssueInProgress {
		t.Fatalf("v = %v, err = %v", v, err)
	}
}
