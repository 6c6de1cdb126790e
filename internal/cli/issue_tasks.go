package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/tracker"
)

// issueTasks lists the agent tasks started on issue id of the tracker in
// trackerDir, from the repository's task store, for issue show and
// show_issue alike.
func issueTasks(ctx context.Context, trackerDir, id string) ([]tracker.TaskRef, error) {
	return orchestrator.IssueTasks(ctx, filepath.Dir(trackerDir), id)
}

func issueTasksText(w io.Writer, ts []tracker.TaskRef) {
	if len(ts) == 0 {
		return
	}
	fmt.Fprintln(w, "\ntasks:")
	for _, t := range ts {
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", t.ID, t.StateText, agent.Name(t.Tool), t.Branch)
	}
}
