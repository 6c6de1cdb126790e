package mcpagent

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/cursor"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// Page sizes of list_tasks.
const (
	defaultTaskPage = 50
	maxTaskPage     = 1000
)

type listIn struct {
	Status string `json:"status,omitempty" jsonschema:"Only tasks with this status"`
	Limit  *int   `json:"limit,omitempty" jsonschema:"Most tasks per page, 1 to 1000"`
	Cursor string `json:"cursor,omitempty" jsonschema:"nextCursor of a previous page of the same list: continues it"`
}

// taskPage is list_tasks' result.
type taskPage struct {
	Tasks      []taskSummary `json:"tasks" jsonschema:"The page's tasks, oldest first"`
	Total      int           `json:"total" jsonschema:"How many tasks the list holds in all"`
	NextCursor string        `json:"nextCursor,omitempty" jsonschema:"Pass as cursor (same status) for the next page; absent on the last page"`
}

var taskStatuses = []string{
	string(orchestrator.StatusPending), string(orchestrator.StatusInProgress), string(orchestrator.StatusWaiting),
	string(orchestrator.StatusCompleted), string(orchestrator.StatusFailed), string(orchestrator.StatusCancelled),
}

func listSchema() *jsonschema.Schema {
	s := mcpx.Schema[listIn](map[string]any{"limit": defaultTaskPage}, map[string][]string{"status": taskStatuses})
	lo, hi := 1.0, float64(maxTaskPage)
	s.Properties["limit"].Minimum, s.Properties["limit"].Maximum = &lo, &hi
	return s
}

func (h *handlers) listTasks() mcpx.Tool {
	return mcpx.NewTool(surface, &mcp.Tool{
		Name:  "list_tasks",
		Title: "List tasks",
		Description: "List tasks, oldest first, a page at a time: id, tool, description, status, branch, times; optionally only one status. " +
			"When result.nextCursor is present, pass it as cursor (same status) for the next page. Read one task with report_task or task://{id}.",
		InputSchema: listSchema(),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (out response[taskPage], err error) {
		limit := defaultTaskPage
		if in.Limit != nil { // within the schema's bounds
			limit = *in.Limit
		}
		status := orchestrator.Status(in.Status)
		if status != "" && !status.Valid() {
			return out, invalid("unknown status %q: want one of pending, in_progress, waiting, completed, failed, cancelled", in.Status)
		}
		scope := cursor.For("tasks", in.Status)
		var after *orchestrator.TaskKey
		if in.Cursor != "" {
			after = new(orchestrator.TaskKey)
			if err := cursor.Decode(in.Cursor, scope, after); err != nil {
				return out, mcpx.InvalidParams(err.Error())
			}
			if after.ID == "" || after.CreatedAt == "" {
				return out, mcpx.InvalidParams(cursor.Invalid("malformed position").Error())
			}
		}
		p, err := h.tasks.ListPage(ctx, status, after, limit)
		if err != nil {
			return out, err
		}
		res := taskPage{Tasks: summarizeAll(p.Tasks), Total: p.Total}
		if p.More && len(p.Tasks) > 0 {
			res.NextCursor = cursor.Encode(scope, orchestrator.KeyOf(p.Tasks[len(p.Tasks)-1]))
		}
		msg := fmt.Sprintf("%d of %d task(s)", len(res.Tasks), res.Total)
		if res.NextCursor != "" {
			msg += "; more follow: pass nextCursor as cursor"
		}
		return success(msg, res), nil
	})
}
