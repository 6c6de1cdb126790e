package mcptracker

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// maxBatch bounds a batch so that one call stays one quick change.
const maxBatch = 200

type createIssuesIn struct {
	Issues []createIssueIn `json:"issues" jsonschema:"The issues to create, each with the fields of create_issue"`
}

func (s *server) createIssues() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "create_issues",
		Title:       "Create several issues",
		Description: "Create several issues in one change: all of them or, on any error (which names the item), none. Returns the issues in order.",
		Annotations: creates,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in createIssuesIn) (out []tracker.Issue, err error) {
		if err := checkBatch("issues", len(in.Issues)); err != nil {
			return out, err
		}
		ins := make([]store.IssueInput, len(in.Issues))
		for i, c := range in.Issues {
			ins[i] = c.input()
		}
		return call(ctx, s, func(r *store.Repo) ([]tracker.Issue, error) { return r.CreateIssues(ctx, ins) })
	})
}

type updateIssuesIn struct {
	Updates []updateIssueIn `json:"updates" jsonschema:"The changes, each with the fields of update_issue"`
}

func (s *server) updateIssues() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "update_issues",
		Title:       "Update several issues",
		Description: "Apply several update_issue changes in one change: all of them or, on any error (which names the item), none. Returns the issues in order. To close several issues use close_issue.",
		Annotations: changes,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in updateIssuesIn) (out []tracker.Issue, err error) {
		if err := checkBatch("updates", len(in.Updates)); err != nil {
			return out, err
		}
		ups := make([]store.IssueUpdate, len(in.Updates))
		for i, u := range in.Updates {
			ups[i] = store.IssueUpdate{ID: u.IssueID, Patch: u.patch()}
		}
		return call(ctx, s, func(r *store.Repo) ([]tracker.Issue, error) { return r.UpdateIssues(ctx, ups) })
	})
}

// checkBatch refuses a batch larger than one call may carry (an empty one
// is refused by the schema as missing).
func checkBatch(param string, n int) error {
	if n > maxBatch {
		return mcpx.InvalidParams(fmt.Sprintf("invalid parameter '%s': at most %d items per call, got %d", param, maxBatch, n))
	}
	return nil
}
