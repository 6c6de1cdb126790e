// Package coding is the coding-tools MCP server: read, list, search,
// patch, run and inspect one workspace. It implements the
// coding-tools-mcp-v0.1 profile the user's requirement names ("the
// profile" below); docs/coding-tools.md is that contract in the project's
// words, with the project's revisions, and its sections are cited by
// anchor.
//
// Its tools are registered on the MCP SDK's server and dispatched by it,
// with the controls every server shares (mcpx.Install: the caller, rate
// limits, audit, metrics), as the project's other servers are: the SDK
// lists them and runs their calls, mcpx.ArgsSchema validates their
// arguments (the JSON Schema validator the SDK uses), and their results
// are the SDK's types. What stays the package's own is the tools' shape
// (tool.go: the profile's schemas, defaults and result object, result.go)
// and the profile's wire rules the SDK does not follow, each in one hook
// that says which rule it keeps and why the SDK cannot:
//
//   - http.go: the HTTP checks and their order, with their status codes
//     and JSON-RPC bodies where the SDK's handler writes plain text; one
//     session id per client on every response (the process's one without
//     named clients), where the SDK opens one per initialize;
//   - stdio.go: newline-delimited messages, a batch on a line, run
//     concurrently, where the SDK's transport refuses batches;
//   - front.go and params.go: batches (which the SDK refuses from
//     2025-06-18 on), the envelope's checks, -32002 before initialize,
//     the profile's methods, -32602 with reasons for params the SDK's
//     decoder refuses before any middleware sees them, negotiating down
//     to 2025-06-18 rather than to the SDK's other revisions, and
//     notifications/cancelled naming an exec session;
//   - modern.go: the checks of a 2026-07-28 request, whose errors the
//     profile words and codes its own way;
//   - pipe.go: the mcp.Transport that hands the SDK each message of a
//     session the SDK's transports cannot carry;
//   - sdkserver.go: middleware for the results the SDK shapes otherwise
//     (isError and listChanged written when false, a second initialize
//     answered, the profile's tool order, -32602 for an unknown tool with
//     its reason).
//
// The SDK's client is what the tests talk to it with.
package mcpcoding

import (
	"context"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/sandbox"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/patch"
	"github.com/sudocode/sudocode/internal/workspace/procs"
)

// Options configure the server.
type Options struct {
	Version        string
	ViewImage      bool      // list and serve view_image (P1)
	Dangerous      bool      // --dangerously-skip-all-permissions
	AllowNetwork   bool      // --allow-network: commands may use TCP
	Trace          bool      // one JSON line per tool call on TraceOut
	TraceOut       io.Writer // stderr in the binaries
	ExecAllowRoots []string
	Logger         *slog.Logger
	// Transport is how the server is reached and what its calls go
	// through, as for the other three servers: the bearer tokens (Auth,
	// else Token), the browser origins allowed besides loopback pages
	// (mcpx.OriginAllowed), the caller on stdio or without a token, the
	// session limits shared with the other servers of the process (nil:
	// the defaults), and the rate limits, audit log and metrics of every
	// tool call (nil: none). The profile's wire rules stay this server's
	// own: the order of its checks, JSON-RPC bodies, its realm and its
	// 1 MiB body cap.
	Transport mcpx.Transport
	// Guarded says the HTTP handler is served behind mcpx.Guard (as
	// `sudocode serve` serves it beside the other servers), which has
	// already refused a bad Origin and a missing or wrong token and put
	// the token's caller in the request's context: the handler does not
	// check them a second time. Its other checks keep the profile's order.
	Guarded bool
}

// Server serves one workspace.
type Server struct {
	opts   Options
	root   *workspace.Root
	tools  []tool
	byName map[string]tool
	// sdk dispatches every message the front lets through.
	sdk *mcp.Server
	// standalone is the session of the requests that stand alone: those
	// of 2026-07-28, and every one of a stateless server. It starts
	// initialized: no request waits for an initialize that another
	// instance may have answered.
	standalone *pipe
	// sessions are the HTTP sessions, one per client.
	sessions *httpSessions
	// auth is the bearer tokens HTTP requests must carry; nil: none.
	auth *mcpx.Auth
	// patcher serialises apply_patch and remembers first-seen contents
	// for git_diff's fallback outside a repository.
	patcher *patch.Patcher
	traceMu sync.Mutex
	// procs runs exec_command's commands and keeps their sessions.
	procs *procs.Manager
	// encoded holds the answers of tool calls in flight, encoded, by
	// their request's *mcp.RequestExtra (encodedResults).
	encoded sync.Map
}

// New returns the server for root.
func New(root *workspace.Root, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, root: root, byName: map[string]tool{}, patcher: patch.NewPatcher(),
		auth:  opts.Transport.Tokens(),
		procs: procs.New(procs.Options{Root: root.Path, AllowRoots: opts.ExecAllowRoots, Dangerous: opts.Dangerous, Network: opts.AllowNetwork})}
	if reason := sandbox.BoxUnavailable(); reason != "" {
		opts.Logger.Warn("the sealed box is unavailable: exec_command's commands run behind Landlock and seccomp only (docs/sandbox.md)", "reason", reason)
	}
	s.tools = []tool{
		s.readFile(), s.listDir(), s.listFiles(), s.searchText(), s.applyPatch(),
		s.execCommand(), s.writeStdin(), s.killSession(),
		s.gitStatus(), s.gitDiff(), s.requestPermissions(),
	}
	if opts.ViewImage {
		s.tools = append(s.tools, s.viewImage())
	}
	for _, t := range s.tools {
		s.byName[t.Name] = t
	}
	s.sdk = s.newSDKServer()
	s.sessions = newHTTPSessions(opts.Transport.Sessions, s.sdk)
	s.standalone = connect(s.sdk, &mcp.ServerSessionState{
		InitializeParams: &mcp.InitializeParams{ProtocolVersion: ProtocolVersion}, NegotiatedProtocolVersion: ProtocolVersion})
	s.standalone.initialized.Store(true)
	return s
}

// Sessions is the number of live sessions over HTTP: those a client has
// initialized.
func (s *Server) Sessions() int { return s.sessions.initialized() }

// Close ends what the server started: the process group of every exec
// command still running (or that left processes behind), SIGTERM then
// SIGKILL a second later, and the SDK's sessions.
func (s *Server) Close(context.Context) {
	s.procs.Close()
	s.sessions.close()
	s.standalone.Close()
}
