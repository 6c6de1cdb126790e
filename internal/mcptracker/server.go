// Package tracker is the tracker's MCP server (docs/servers.md#tracker): the tools,
// resources and prompts an agent uses to plan work in .sudocode, running
// in-process on the same store code as the sudocode CLI, with results in
// the shapes the CLI's --json prints.
package mcptracker

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// Options configure the server.
type Options struct {
	// Tracker is the project's tracker, shared with the process's other
	// surfaces; nil: one of the server's own, found from Dir.
	Tracker *app.Tracker
	// Dir is where the server's own tracker is looked for, walking up
	// (and where init creates it), whatever SUDOCODE_WORKING_DIR and
	// SUDOCODE_DB say; empty is SUDOCODE_DB, SUDOCODE_WORKING_DIR or the
	// working directory.
	Dir     string
	Version string
	Actor   string       // recorded as created_by
	Logger  *slog.Logger // nil discards
	// Budget caps a list result's JSON, in bytes; 0 is DefaultBudget.
	Budget int
	// PageSize is how many tools, resources, resource templates or prompts
	// a list request returns at most (mcp.ServerOptions.PageSize); 0 is the
	// SDK's default (1,000), far above the server's few of each.
	PageSize int
	// Tasks lists the agent tasks started on an issue of the tracker in
	// trackerDir (the .sudocode directory); show_issue includes them. Nil:
	// show_issue lists none.
	Tasks func(ctx context.Context, trackerDir, issueID string) ([]tracker.TaskRef, error)
	// IssueUsage and ProjectUsage read what the agent tasks cost from the
	// same store: of an issue, for show_issue, and of the whole project,
	// for stats. Nil: the figures are absent.
	IssueUsage   func(ctx context.Context, trackerDir, issueID string) (*tracker.TaskUsage, error)
	ProjectUsage func(ctx context.Context, trackerDir string) (*tracker.ProjectUsage, error)
}

// DefaultBudget keeps a list result to a few thousand tokens.
const DefaultBudget = 24 << 10

// server answers calls on the tracker, which serialises them: they are
// short, and the store's cache connection is single anyway.
type server struct {
	opts    Options
	tracker *app.Tracker
}

// New returns the tracker server. The tracker is found at each call (from
// SUDOCODE_WORKING_DIR, SUDOCODE_DB or the working directory), so the
// server can start before `init`.
func New(opts Options) *mcp.Server {
	if opts.Budget == 0 {
		opts.Budget = DefaultBudget
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &server{opts: opts, tracker: opts.Tracker}
	if s.tracker == nil {
		s.tracker = ownTracker(opts)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "sudocode", Title: "Sudocode tracker", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       mcpx.SDKLogger(opts.Logger),
		PageSize:     opts.PageSize,
		Capabilities: &mcp.ServerCapabilities{
			//lint:ignore SA1019 MCP logging stays for clients of protocol versions before its deprecation (SEP-2577); moving to its replacement is separate work
			Logging:   &mcp.LoggingCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
			Tools:     &mcp.ToolCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
		},
	})
	mcpx.AddTools(srv, s.tools()...)
	s.addResources(srv)
	s.addPrompts(srv)
	return srv
}

// tools is the server's tool list, in the requirement's order, then the extras.
func (s *server) tools() []mcpx.Tool {
	return []mcpx.Tool{
		s.ready(), s.listIssues(), s.showIssue(), s.createIssue(), s.updateIssue(), s.closeIssue(), s.blockedIssues(),
		s.listSpecs(), s.showSpec(), s.createSpec(),
		s.link(),
		s.addFeedback(), s.listFeedback(), s.showFeedback(), s.acknowledgeFeedback(), s.resolveFeedback(),
		s.wontfixFeedback(), s.staleFeedback(), s.relocateFeedback(),
		s.stats(), s.status(), s.init(),
		s.search(), s.updateSpec(), s.unlink(), s.createIssues(), s.updateIssues(), s.addComment(),
	}
}

// call runs fn on the tracker, with changes recorded as the caller when
// known, and returns what it returns; NewTool turns an error into the
// fault envelope, an invalid cursor into an invalid-params error.
func call[T any](ctx context.Context, s *server, fn func(*store.Repo) (T, error)) (T, error) {
	return app.Read(ctx, s.tracker, mcpx.CallerFrom(ctx), fn)
}

// fit cuts a list to the byte budget: it keeps the longest prefix whose
// JSON fits, but at least one item (so that a walk with cursors always
// moves on), and returns how many items it kept. set(n) must make v hold
// the first n items, and the note of the cut when n is not all of them.
func (s *server) fit(v any, n int, set func(int)) int {
	size := func() int { b, _ := json.Marshal(v); return len(b) }
	if size() <= s.opts.Budget {
		return n
	}
	lo, hi := min(1, n), n // lo is kept
	for lo < hi {
		mid := (lo + hi + 1) / 2
		set(mid)
		if size() <= s.opts.Budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	set(lo)
	return lo
}

// Annotations of the tool families.
var (
	readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	creates  = &mcp.ToolAnnotations{DestructiveHint: new(false), IdempotentHint: false, OpenWorldHint: new(false)}
	changes  = &mcp.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(false)}
)

// ownTracker is the server's own tracker: from Dir, else where the
// process's environment and working directory say (a server of its own
// runs as a process of its own).
func ownTracker(opts Options) *app.Tracker {
	if opts.Dir != "" {
		return app.NewTracker(opts.Dir, opts.Actor)
	}
	wd, _ := os.Getwd()
	return app.NewTrackerIn(wd, os.Getenv, opts.Actor)
}
