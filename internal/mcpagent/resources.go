package mcpagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/mcpx"
)

const (
	mimeJSON = "application/json"
	mimeText = "text/plain"
)

func (h *handlers) addResources(s *mcp.Server) {
	for _, r := range []*mcp.Resource{
		{URI: uriStatus, Name: "agent-status", Title: "Agent Status", MIMEType: mimeJSON,
			Description: "Orchestrator status: active task count, tasks by status, and which agent CLIs are available"},
		{URI: uriTaskList, Name: "task-list", Title: "Task List", MIMEType: mimeJSON,
			Description: "All tasks, oldest first: id, description, tool, status, branch (the newest 1,000 when there are more: page through every task with the list_tasks tool)"},
		{URI: uriTasks, Name: "agent-tasks", Title: "Agent Tasks", MIMEType: mimeJSON,
			Description: "The same list as task://list"},
	} {
		s.AddResource(r, h.read)
	}
	for _, t := range []*mcp.ResourceTemplate{
		{URITemplate: "task://{id}", Name: "task", Title: "Task", MIMEType: mimeJSON,
			Description: "A task in full: instructions, status, session, timing, result, and its most recent log entries (on a server shared by a team, only for the client that created it, or an admin)"},
		{URITemplate: "task://{id}/logs", Name: "task-logs", Title: "Task Logs", MIMEType: mimeText,
			Description: "A task's log as plain text, one entry per line: sequence number, time, kind and text (the newest entries when long)"},
		{URITemplate: "task://{id}/result", Name: "task-result", Title: "Task Result", MIMEType: mimeJSON,
			Description: "A task's completion result as JSON: outcome, final answer, cost, tokens, files changed, or its error"},
		{URITemplate: "session://{sessionType}/{sessionId}", Name: "session", Title: "Agent Session", MIMEType: mimeJSON,
			Description: "The tasks of one agent session (sessionType is the tool, e.g. claudecode) and whether it can be resumed"},
		{URITemplate: "branch://{+branchName}/tasks", Name: "branch-tasks", Title: "Tasks on a Branch", MIMEType: mimeJSON,
			Description: "Tasks working on a branch; the name as written (branch://feature/auth/tasks) or percent-encoded (feature%2Fauth)"},
		{URITemplate: "project://{projectPath}/status", Name: "project-status", Title: "Project Status", MIMEType: mimeJSON,
			Description: "The project's checkout (HEAD, branch, uncommitted changes) and its tasks; projectPath is the percent-encoded absolute path"},
		{URITemplate: "log://{logType}/{date}", Name: "log", Title: "Historical Logs", MIMEType: mimeText,
			Description: "Log entries of every task (on a server shared by a team, the client's own) on one UTC day (YYYY-MM-DD or today); logType is all or an event kind: " + strings.Join(logTypes[1:], ", ")},
	} {
		s.AddResourceTemplate(t, h.read)
	}
}

// read serves every resource: an unknown URI or task is "resource not
// found", a malformed variable is invalid params.
func (h *handlers) read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	ref, ok := parseURI(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var (
		v    any
		text string
		err  error
	)
	switch ref.kind {
	case "status":
		v, err = h.status(ctx)
	case "tasks":
		v, err = h.taskList(ctx)
	case "task":
		v, err = h.task(ctx, ref.task)
	case "result":
		v, err = h.result(ctx, ref.task)
	case "session":
		v, err = h.session(ctx, ref.sessionType, ref.sessionID)
	case "branch":
		v, err = h.branch(ctx, ref.branch)
	case "project":
		v, err = h.project(ctx, ref.project)
	case "logs":
		text, err = h.logs(ctx, ref.task)
	case "log":
		text, err = h.history(ctx, ref.logType, ref.date)
	}
	if err != nil {
		return nil, resourceError(uri, err)
	}
	mime := mimeText
	if v != nil {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return nil, mcpx.InternalError("encode " + uri + ": " + err.Error())
		}
		text, mime = string(b), mimeJSON
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}, nil
}

func resourceError(uri string, err error) error {
	switch fault.CodeOf(err) {
	case fault.NotFound:
		return mcp.ResourceNotFoundError(uri)
	case fault.Invalid:
		return mcpx.InvalidParams(fmt.Sprintf("%s: %v", uri, err))
	}
	return mcpx.InternalError(fmt.Sprintf("failed to read %s: %v", uri, err))
}

// subscribe accepts subscriptions to the resources read serves; the SDK
// keeps the subscriber list and watch sends the updates.
func (h *handlers) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	ref, ok := parseURI(req.Params.URI)
	if !ok {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	switch ref.kind {
	case "task", "logs", "result":
		if _, err := h.owned(ctx, ref.task); err != nil {
			return resourceError(req.Params.URI, err)
		}
	case "log":
		return mcpx.InvalidParams("log:// resources are history; subscribe to task://{id}/logs instead")
	}
	return nil
}

func (h *handlers) unsubscribe(context.Context, *mcp.UnsubscribeRequest) error { return nil }

// notFound is a missing resource.
func notFound(format string, args ...any) error { return fault.New(fault.NotFound, format, args...) }

func badVar(format string, args ...any) error { return fault.New(fault.Invalid, format, args...) }
