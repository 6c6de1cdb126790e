package mcpagent

import (
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// A run's file_change entry names the files, and says so when there are
// none, rather than ending at its kind.
func TestFileChangeLine(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		ev   agent.Event
		want string
	}{
		{agent.Event{Time: now, Kind: agent.KindFileChange, Text: "1 files changed, 1 insertions(+), 0 deletions(-), 0 commits", Files: []string{"hello.txt"}}, "file_change: hello.txt"},
		{agent.Event{Time: now, Kind: agent.KindFileChange, Text: "no changes"}, "file_change: no changes"},
	} {
		if got := eventSummary(c.ev, 200); got != c.want {
			t.Errorf("summary = %q, want %q", got, c.want)
		}
	}
}
