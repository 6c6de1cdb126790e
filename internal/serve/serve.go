// Package serve wires `sudocode serve`: the four MCP servers over
// Streamable HTTP on one port, each at its own path under /mcp/, and the
// dashboard at /, all behind the same hardening as a single server
// (internal/mcpx: loopback unless a token is set, bearer tokens, Origin
// checks, body caps, DNS-rebinding protection) and the same controls of
// tool calls (rate limits, audit log, metrics at /metrics). Two of the
// servers run code (the coding tools and the agent orchestrator), so a
// token is required on loopback too, unless NoAuth says otherwise.
package serve

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/mcpagent"
	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/mcprulesets"
	"github.com/sudocode/sudocode/internal/mcptracker"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/userenv"
	"github.com/sudocode/sudocode/internal/workspace"
)

// The MCP endpoints.
const (
	PathTracker  = "/mcp/tracker"
	PathRulesets = "/mcp/rulesets"
	PathCoding   = "/mcp/coding"
	PathAgent    = "/mcp/agent"
)

// Options configure a Server.
type Options struct {
	// Dir is the project: the tracker is found walking up from it, it is
	// the coding tools' workspace, and the orchestrator's repository.
	Dir string
	// Rulesets is the ruleset store; the caller closes it after Close.
	Rulesets rulesets.Store
	// Token is the bearer token every request needs (with Auth, one of
	// them). Without Token or Auth, New refuses to build a server unless
	// NoAuth is set.
	Token          string
	AllowedOrigins []string // browser origins allowed besides loopback ones
	Version        string
	// Actor is who changes are recorded as when no token names the caller.
	Actor  string
	Logger *slog.Logger
	// Auth is the accepted bearer tokens (Token and a token file); nil:
	// Token alone. Every request, the dashboard's included, needs one.
	Auth *mcpx.Auth
	// NoAuth serves without a token: any process and any user of the
	// machine can then run commands through /mcp/coding and /mcp/agent.
	// The dashboard's reads are open; its writes need a token made at
	// start (OpenToken).
	NoAuth bool
	// Calls are the rate limits, audit log and metrics of every tool call
	// of the four servers; with metrics, /metrics answers scrapes.
	Calls *mcpx.Calls
	// BodyTimeout is how long a request body may take to arrive; 0 is
	// mcpx.DefaultBodyTimeout.
	BodyTimeout time.Duration
	// Sessions holds the MCP sessions of the four servers to one set of
	// limits; nil: the default limits.
	Sessions *mcpx.Sessions
	// Stateless serves the four servers' HTTP requests each on its own,
	// with no MCP session (mcpx.Transport.Stateless).
	Stateless bool
	// Worktrees is the root of the task worktrees (--worktrees); empty for
	// SUDOCODE_WORKTREES, the project's setting or the default.
	Worktrees string
	// TrackerCommand is the argv of the tracker's MCP server that agents
	// get; nil: none.
	TrackerCommand []string
	// Env is the environment of the user the tasks run for
	// (app.Options.Env); zero is the process's.
	Env userenv.Env
	// Fleet runs the tasks' agents on a fleet's workers (app.Options.Fleet);
	// nil runs them as processes of this one.
	Fleet *orchestrator.FleetSetup
}

// Server is everything `sudocode serve` runs.
type Server struct {
	// Tasks is the project's tasks (its orchestrator); nil
	// when the project is not in a git repository (TasksUnavailable says
	// why).
	Tasks            *orchestrator.Orchestrator
	TasksUnavailable string
	Dashboard        *dashboard.Dashboard
	// OpenToken opens the dashboard in a browser, with write access, at
	// /?token=OpenToken: the server's Token, or with NoAuth a token made at
	// start that the dashboard's writes alone need. Empty with a token
	// file alone: each client opens it with its own token.
	OpenToken string

	dir       string
	logger    *slog.Logger
	transport mcpx.Transport
	mux       *http.ServeMux
	handler   http.Handler
	endpoints []dashboard.Endpoint
	coding    *mcpcoding.Server
	project   *app.Project
	agent     *mcpagent.Server // nil with Tasks
}

// New builds the servers and the dashboard over o.Dir. Parts that cannot
// run there (the orchestrator outside a git repository, the coding tools
// in a directory they refuse) answer 503 with the reason; the rest serve.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Rulesets == nil {
		return nil, errors.New("serve: no ruleset store")
	}
	if o.Token == "" && !o.Auth.Enabled() && !o.NoAuth {
		return nil, errors.New("serve: no bearer token: the coding tools and the agent orchestrator run code, so every request must carry a token (set Token or Auth; NoAuth serves without one)")
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	logger := o.Logger
	s := &Server{dir: dir, logger: logger, mux: http.NewServeMux(),
		transport: mcpx.Transport{Token: o.Token, AllowedOrigins: o.AllowedOrigins, Caller: o.Actor, Auth: o.Auth, Calls: o.Calls,
			BodyTimeout: o.BodyTimeout, Sessions: o.Sessions, Stateless: o.Stateless}}
	if s.transport.Sessions == nil {
		s.transport.Sessions = mcpx.NewSessions(mcpx.SessionLimits{})
	}
	var checkToken func(string) bool
	if o.Auth.Enabled() {
		checkToken = func(token string) bool { _, ok := o.Auth.Check(token); return ok }
	}

	// Rulesets changed through this process are pushed to the dashboard at
	// once; changes from elsewhere are polled.
	notify := &notifyingStore{Store: o.Rulesets}
	// The project, once for every surface: one tracker store, and one
	// orchestrator, which keeps each task's issue with it (noting failures
	// on their issues) once, whoever started them.
	s.project, err = app.Open(ctx, app.Options{Dir: dir, Actor: o.Actor, Rulesets: notify,
		Tasks: true, Worktrees: o.Worktrees, TaskActor: mcpagent.Name, TrackerCommand: o.TrackerCommand, Env: o.Env, Warm: true, Fleet: o.Fleet})
	if err != nil {
		return nil, err
	}
	s.Tasks, s.TasksUnavailable = s.project.Orchestrator, s.project.TasksUnavailable
	if s.Tasks == nil {
		logger.Warn("tasks are unavailable", "reason", s.TasksUnavailable)
	}
	writeToken := ""
	switch {
	case o.Token != "":
		s.OpenToken = o.Token
	case o.NoAuth:
		writeToken = rand.Text()
		s.OpenToken = writeToken
	}
	s.Dashboard = dashboard.New(dashboard.Options{
		Dir: dir, Actor: o.Actor, Version: o.Version,
		Tracker:          s.project.Tracker,
		Rulesets:         rulesets.Library{Store: notify},
		Tasks:            s.Tasks,
		TasksUnavailable: s.TasksUnavailable,
		Token:            o.Token,
		CheckToken:       checkToken,
		ClientOf:         clientOf(o.Auth),
		WriteToken:       writeToken,
		AllowedOrigins:   o.AllowedOrigins,
		Logger:           logger,
	})
	notify.changed = func() { s.Dashboard.Changed(dashboard.TopicRulesets) }

	s.mountSDK(PathTracker, "tracker", mcptracker.New(mcptracker.Options{Tracker: s.project.Tracker, Version: o.Version, Actor: o.Actor, Logger: logger,
		Tasks: func(ctx context.Context, trackerDir, id string) ([]tracker.TaskRef, error) {
			return orchestrator.IssueTasks(ctx, filepath.Dir(trackerDir), id)
		},
		IssueUsage: func(ctx context.Context, trackerDir, id string) (*tracker.TaskUsage, error) {
			return orchestrator.ReadIssueUsage(ctx, filepath.Dir(trackerDir), id)
		},
		ProjectUsage: func(ctx context.Context, trackerDir string) (*tracker.ProjectUsage, error) {
			return orchestrator.ReadProjectUsage(ctx, filepath.Dir(trackerDir))
		}}))
	s.mountSDK(PathRulesets, "rulesets", mcprulesets.NewWithOptions(rulesets.Library{Store: notify, Actor: o.Actor},
		mcprulesets.Options{Logger: logger, ImportRoots: importRoots(dir)}))

	if root, err := workspace.Open(dir); err != nil {
		s.unavailable(PathCoding, "the coding tools cannot serve "+dir+": "+err.Error())
	} else {
		t := s.transport
		t.Name = mcpcoding.ServerName
		s.coding = mcpcoding.New(root, mcpcoding.Options{Version: o.Version, ViewImage: true, Logger: logger, Transport: t, Guarded: true})
		// One guard, the one every endpoint has (Origin, token, body
		// cap); the coding server then applies the rest of its
		// own checks (path, media type, version, session, length:
		// docs/coding-tools.md#http-transport).
		s.mount(PathCoding, mcpx.Guard(at(mcpx.Path, s.coding.HTTPHandler()), s.transport), "")
	}

	if s.Tasks != nil {
		s.agent = mcpagent.New(s.Tasks, mcpagent.Options{Version: o.Version, Logger: logger, Shared: o.Stateless})
		s.mountSDK(PathAgent, "agent", s.agent.Server)
	} else {
		s.unavailable(PathAgent, s.TasksUnavailable)
	}

	s.mux.Handle("/mcp/", mcpx.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no MCP server at "+r.URL.Path+"; the servers are at "+strings.Join(Paths(), ", "), http.StatusNotFound)
	}), s.transport))
	if m := metricsOf(o.Calls); m != nil {
		if s.coding != nil {
			m.WatchSessions(mcpcoding.ServerName, s.coding.Sessions)
		}
		if s.Tasks != nil {
			m.WatchTasks(TaskCounts(s.Tasks))
		}
		if s.Tasks != nil && s.Tasks.HasFleet() {
			m.WatchFleet(FleetWorkers(s.Tasks))
		}
		s.mux.Handle(mcpx.MetricsPath, mcpx.Guard(m.Handler(), s.transport))
	}
	s.mux.Handle("/", dashboard.ActAs(o.Auth, s.Dashboard))
	s.handler = s.mux
	return s, nil
}

// Paths are the MCP endpoints in the order they are listed.
func Paths() []string { return []string{PathTracker, PathRulesets, PathCoding, PathAgent} }

// mountSDK serves an SDK server at path with mcpx's handler: the same
// hardening, transport options and controls as `sudocode mcp --http`.
func (s *Server) mountSDK(path, name string, srv *mcp.Server) {
	t := s.transport
	t.Name = name
	s.mount(path, at(mcpx.Path, mcpx.Handler(srv, t, s.logger)), "")
}

func metricsOf(c *mcpx.Calls) *mcpx.Metrics {
	if c == nil {
		return nil
	}
	return c.Metrics
}

// TaskCounts reads the orchestrator's tasks by status, for the metrics
// (sudocode_tasks).
func TaskCounts(o *orchestrator.Orchestrator) func(context.Context) (map[string]int, error) {
	return func(ctx context.Context) (map[string]int, error) {
		by, err := o.ByStatus(ctx)
		if err != nil {
			return nil, err
		}
		counts := make(map[string]int, len(by))
		for status, n := range by {
			counts[string(status)] = n
		}
		return counts, nil
	}
}

// FleetWorkers reads the fleet's workers connected now, for the metrics
// (sudocode_fleet_*).
func FleetWorkers(o *orchestrator.Orchestrator) func(context.Context) ([]mcpx.FleetWorker, error) {
	return func(ctx context.Context) ([]mcpx.FleetWorker, error) {
		ws, err := o.Workers(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]mcpx.FleetWorker, 0, len(ws))
		for _, w := range ws {
			out = append(out, mcpx.FleetWorker{ID: w.ID, Host: w.Host, Slots: w.Slots, Running: w.Running, Heartbeat: w.Heartbeat})
		}
		return out, nil
	}
}

// mount serves h at path and lists the endpoint; a reason marks it
// unavailable on the dashboard.
func (s *Server) mount(path string, h http.Handler, reason string) {
	s.mux.Handle(path, h)
	s.endpoints = append(s.endpoints, dashboard.Endpoint{Name: strings.TrimPrefix(path, "/mcp/"), Path: path, Available: reason == "", Reason: reason})
	s.Dashboard.SetEndpoints(s.sortedEndpoints())
}

// unavailable answers path with 503 and the reason (after the shared
// checks, so it says nothing to a caller without the token).
func (s *Server) unavailable(path, reason string) {
	s.mount(path, mcpx.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "60")
		http.Error(w, "unavailable: "+reason, http.StatusServiceUnavailable)
	}), s.transport), reason)
}

func (s *Server) sortedEndpoints() []dashboard.Endpoint {
	out := make([]dashboard.Endpoint, 0, len(s.endpoints))
	for _, p := range Paths() {
		for _, e := range s.endpoints {
			if e.Path == p {
				out = append(out, e)
			}
		}
	}
	return out
}

// Endpoints lists the MCP endpoints, with the reason of any unavailable one.
func (s *Server) Endpoints() []dashboard.Endpoint { return s.sortedEndpoints() }

// Dir is the project directory, absolute.
func (s *Server) Dir() string { return s.dir }

// Serve serves on ln until ctx ends, then shuts down gracefully (open event
// streams are ended at once; requests in flight get a few seconds).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return mcpx.ServeHTTP(ctx, ln, s.handler, s.transport.BodyTimeout, s.logger)
}

// Close stops the dashboard, ends the coding tools' commands and the
// running agents (their tasks are marked failed, as after a crash), and
// closes the task store.
func (s *Server) Close() {
	s.Dashboard.Close()
	if s.coding != nil {
		s.coding.Close(context.Background())
	}
	// Before the agents end: a failure noted after this is noted by the
	// next start, from the task store.
	if s.agent != nil {
		s.agent.Close()
	}
	s.project.Close()
}

// at serves h as if every request were for path: the servers each answer
// at their own fixed path (/mcp), and are mounted here under another.
func at(path string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.Path, u.RawPath = path, ""
		r2.URL = &u
		h.ServeHTTP(w, r2)
	})
}

// notifyingStore reports every successful change of the ruleset library.
type notifyingStore struct {
	rulesets.Store
	changed func()
}

func (n *notifyingStore) done(err error) {
	if err == nil && n.changed != nil {
		n.changed()
	}
}

func (n *notifyingStore) Upsert(ctx context.Context, p rulesets.Patch, now time.Time) (bool, error) {
	created, err := n.Store.Upsert(ctx, p, now)
	n.done(err)
	return created, err
}

func (n *notifyingStore) Create(ctx context.Context, r rulesets.Ruleset, by string) error {
	err := n.Store.Create(ctx, r, by)
	n.done(err)
	return err
}

func (n *notifyingStore) Delete(ctx context.Context, name, by string, now time.Time) error {
	err := n.Store.Delete(ctx, name, by, now)
	n.done(err)
	return err
}

// clientOf names a token's client where the token file names clients
// (the dashboard's page then acts for it); nil otherwise.
func clientOf(auth *mcpx.Auth) func(string) (string, bool) {
	if !auth.NamesClients() {
		return nil
	}
	return auth.Check
}

// importRoots are where import_rules may read: SUDOCODE_IMPORT_ROOTS when
// set, else the project (not the directory serve was started in, which
// may be / or the home).
func importRoots(dir string) []string {
	if os.Getenv(mcprulesets.EnvImportRoots) != "" {
		return mcprulesets.DefaultImportRoots()
	}
	return []string{dir}
}
