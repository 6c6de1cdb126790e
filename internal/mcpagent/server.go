// Package agent is the agent orchestrator's MCP server: the tools
// create_task (from instructions or from a tracker issue), update_task,
// end_task, report_task, list_tasks, gc_tasks, merge_task and run_ready, and the
// agent://, task://, session://, branch://, project:// and log://
// resources over an orchestrator.Orchestrator. Every tool answers in one shape,
// {status, message, result, error{type, details}}, as structured content
// with the same JSON as text.
package mcpagent

import (
	"context"
	_ "embed"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// Name is the server's name in the initialize result.
const Name = "sudocode-agent"

//go:embed instructions.md
var instructions string

// Options configure the server.
type Options struct {
	Version string
	Logger  *slog.Logger
	// PageSize is how many tools, resources or resource templates a list
	// request returns at most (mcp.ServerOptions.PageSize); 0 is the SDK's
	// default (1,000), far above the server's few of each.
	PageSize int
	// Shared says other processes may use the task database too (several
	// instances run --stateless): the server then follows their changes
	// in it (watchPeers), not only its own.
	Shared bool
}

// handlers carries what every tool and resource needs.
type handlers struct {
	tasks  *orchestrator.Orchestrator // the project's tasks, which keep their issues with them
	logger *slog.Logger
	opts   Options
}

// Server is the MCP server and the work that follows the tasks for it.
type Server struct {
	*mcp.Server
	stop func()
}

// Close stops following the tasks: the notifications and the watch of
// other instances' changes (the tasks are their owner's to close). It returns
// once they have stopped.
func (s *Server) Close() { s.stop() }

// New returns the server over the project's tasks (app.Project's
// Orchestrator). Until Close, it follows the tasks' changes,
// sending notifications/resources/updated to clients that subscribed to
// an affected resource.
func New(tasks *orchestrator.Orchestrator, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	h := &handlers{tasks: tasks, logger: opts.Logger, opts: opts}
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Sudocode agent orchestrator", Version: opts.Version}, &mcp.ServerOptions{
		Instructions:       instructions,
		Logger:             mcpx.SDKLogger(opts.Logger),
		PageSize:           opts.PageSize,
		SubscribeHandler:   h.subscribe,
		UnsubscribeHandler: h.unsubscribe,
		Capabilities: &mcp.ServerCapabilities{
			//lint:ignore SA1019 MCP logging stays for clients of protocol versions before its deprecation (SEP-2577); moving to its replacement is separate work
			Logging:   &mcp.LoggingCapabilities{},
			Resources: &mcp.ResourceCapabilities{Subscribe: true},
			Tools:     &mcp.ToolCapabilities{},
		},
	})
	mcpx.AddTools(s, h.createTask(), h.updateTask(), h.endTask(), h.reportTask(), h.listTasks(), h.gcTasks(), h.mergeTask(), h.runReady())
	h.addResources(s)
	s.AddReceivingMiddleware(asClient)
	w := watch(tasks, s)
	ctx, cancel := context.WithCancel(context.Background())
	var peers sync.WaitGroup
	if opts.Shared {
		peers.Go(func() { watchPeers(ctx, tasks, w, opts.Logger) })
	}
	return &Server{Server: s, stop: sync.OnceFunc(func() {
		cancel()
		peers.Wait()
		w.stop()
	})}
}
