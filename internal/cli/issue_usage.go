package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/plural"
	"github.com/sudocode/sudocode/internal/tracker"
)

// issueUsage adds up the usage of every task started on issue id of the
// tracker in trackerDir, for issue show and show_issue alike.
func issueUsage(ctx context.Context, trackerDir, id string) (*tracker.TaskUsage, error) {
	return orchestrator.ReadIssueUsage(ctx, filepath.Dir(trackerDir), id)
}

// projectUsage is what the tasks of the tracker's repository cost, for
// stats and the stats tool alike.
func projectUsage(ctx context.Context, trackerDir string) (*tracker.ProjectUsage, error) {
	return orchestrator.ReadProjectUsage(ctx, filepath.Dir(trackerDir))
}

// spendText is tasks' usage in words: their count, the tokens as a task's
// report says them, and the cost, said to be unknown rather than $0 when
// no task reported one, and to leave tasks out when some did not.
func spendText(u tracker.TaskUsage) string {
	parts := []string{plural.Count(u.Tasks, "task", "tasks")}
	if t := u.Tokens; t != nil {
		parts = append(parts, fmt.Sprintf("%d tokens in, %d out", t.Input+t.CacheRead+t.CacheWrite, t.Output))
	}
	switch {
	case u.CostUSD == nil || u.Priced == 0:
		parts = append(parts, "cost unknown")
	case u.Priced < u.Tasks:
		parts = append(parts, fmt.Sprintf("%s (%d of them reported a cost)", money(*u.CostUSD), u.Priced))
	default:
		parts = append(parts, money(*u.CostUSD))
	}
	return strings.Join(parts, ", ")
}

// projectUsageText is stats' lines on the tasks' usage: the total, then
// the issues that cost the most.
func projectUsageText(w io.Writer, p *tracker.ProjectUsage) {
	if p == nil {
		return
	}
	fmt.Fprintf(w, "Task usage\t\t%s\n", spendText(p.Total))
	for _, is := range p.TopIssues {
		fmt.Fprintf(w, "  %s\t\t%s\n", is.IssueID, spendText(is.TaskUsage))
	}
}
