// Package dashboard is the web workbench of `sudocode serve`: the tracker
// (a board of issues, specs with their anchored feedback), the ruleset
// library, and the orchestrator's tasks with their live logs and branch
// diffs (and, with a fleet, the workers that run them), each viewed and
// changed there. The page is vanilla JS and CSS
// embedded in the binary (no CDN, no build step); it reads and writes JSON
// under /api/ and is pushed changes over Server-Sent Events (/api/events,
// and one stream per task for its log).
//
// Every write calls the code MCP and the CLI call (the tracker's store, the
// ruleset library, the orchestrator that runs tasks from issues to merges,
// one instance shared with the agent server), never a second implementation, and
// needs the server's token and the page's own Origin (write.go). It escapes everything it shows (the page builds DOM nodes with
// textContent, never HTML strings) and answers with a strict
// Content-Security-Policy.
package dashboard

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/rulesets"
)

//go:embed assets
var assets embed.FS

// Options configure a Dashboard.
type Options struct {
	// Dir is the project: the tracker is the .sudocode found walking up
	// from it, and task diffs run git there.
	Dir     string
	Actor   string
	Version string
	// Tracker is the project's tracker, shared with the process's other
	// surfaces; nil: one of the dashboard's own, found from Dir.
	Tracker *app.Tracker
	// Rulesets is the ruleset library; a nil Store shows rulesets as
	// unavailable.
	Rulesets rulesets.Library
	// Tasks is the project's tasks (app.Project's Orchestrator, which
	// keeps each task's issue with it), which the agent server uses too;
	// nil shows tasks as unavailable, with TasksUnavailable as the reason.
	Tasks            *orchestrator.Orchestrator
	TasksUnavailable string
	// Token, when set, is required of every request: as a bearer header, or
	// as the page's cookie, which opening /?token=TOKEN sets (session.go).
	Token string
	// CheckToken, when set, decides which tokens are accepted in Token's
	// place (a token file with a token per client).
	CheckToken func(token string) bool
	// ClientOf names the client of a token, on a server whose token file
	// names them: a page opened with a client's token acts for it.
	ClientOf func(token string) (string, bool)
	// WriteToken, when set, is what writes need when reading is open:
	// `sudocode serve` on loopback makes one when no token is configured.
	// A configured Token (or CheckToken) is accepted for writes too; with
	// no token at all the dashboard is read-only.
	WriteToken string
	// AllowedOrigins are browser origins allowed besides loopback ones and
	// the page's own.
	AllowedOrigins []string
	// Endpoints are the MCP endpoints shown on the page; SetEndpoints
	// changes them.
	Endpoints []Endpoint
	Logger    *slog.Logger
	// TrackerPoll and RulesetsPoll are how often the tracker's files and
	// the ruleset library are checked for changes made by other processes;
	// 0 means 300ms and 2s.
	TrackerPoll, RulesetsPoll time.Duration
}

// Endpoint is an MCP endpoint the page lists.
type Endpoint struct {
	Name      string `json:"name"`
	Path      string `json:"path"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
}

// Dashboard serves the page and its APIs.
type Dashboard struct {
	opts    Options
	logger  *slog.Logger
	mux     *http.ServeMux
	hub     *hub
	tracker trackerReader
	stop    context.CancelFunc
	wg      sync.WaitGroup
	unsub   func()

	epMu      sync.Mutex
	endpoints []Endpoint

	rs rulesetsWatch

	session string // the page's cookie: a secret of its own (session.go)
	pageKey string // what the page's script sends with a change (session.go)
	pagesMu sync.Mutex
	pages   map[string]string // a client's page cookie → the client (session.go)
}

// New returns the dashboard and starts its watchers; Close stops them.
func New(opts Options) *Dashboard {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.TrackerPoll <= 0 {
		opts.TrackerPoll = 300 * time.Millisecond
	}
	if opts.RulesetsPoll <= 0 {
		opts.RulesetsPoll = 2 * time.Second
	}
	ctx, stop := context.WithCancel(context.Background())
	d := &Dashboard{opts: opts, logger: opts.Logger, hub: newHub(), tracker: newTrackerReader(opts.Tracker, opts.Dir, opts.Actor), stop: stop,
		endpoints: opts.Endpoints, session: rand.Text(), pageKey: rand.Text(), pages: map[string]string{}}
	d.routes()
	d.wg.Add(2)
	// The tracker's files as they are now: a change made once New has
	// returned is one the watcher reports, however late it first runs.
	go d.watchTracker(ctx, trackerFingerprint(opts.Dir))
	go d.watchRulesets(ctx)
	if opts.Tasks != nil {
		d.unsub = opts.Tasks.Subscribe(func(c orchestrator.Change) {
			if c.Kind == orchestrator.ChangeLog {
				return // the task's own stream carries its log
			}
			d.hub.publish(event{Name: TopicTasks, Data: taskEvent{ID: c.Task.ID, Kind: c.Kind, Status: string(c.Task.Status)}})
		})
	}
	return d
}

// Topics of /api/events.
const (
	TopicTracker  = "tracker"
	TopicRulesets = "rulesets"
	TopicTasks    = "tasks"
)

type taskEvent struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Status string `json:"status"`
}

// Changed pushes a change of topic to every open page now, without waiting
// for the next poll (serve calls it when a ruleset changes through MCP).
func (d *Dashboard) Changed(topic string) {
	d.hub.publish(event{Name: topic, Data: map[string]string{"source": "push"}})
}

// SetEndpoints replaces the MCP endpoints the page lists.
func (d *Dashboard) SetEndpoints(eps []Endpoint) {
	d.epMu.Lock()
	defer d.epMu.Unlock()
	d.endpoints = append([]Endpoint(nil), eps...)
}

// Close stops the watchers, ends every open event stream and closes the
// tracker.
func (d *Dashboard) Close() {
	if d.unsub != nil {
		d.unsub()
	}
	d.stop()
	d.hub.close()
	d.wg.Wait()
	d.tracker.close()
}

func (d *Dashboard) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	m.Handle("GET /assets/", http.StripPrefix("/assets/", files))
	m.HandleFunc("GET /{$}", d.index)
	m.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/assets/favicon.svg", http.StatusMovedPermanently)
	})
	m.HandleFunc("GET /api/info", d.info)
	m.HandleFunc("GET /api/events", d.events)
	m.HandleFunc("GET /api/issues", d.issues)
	m.HandleFunc("GET /api/issues/{id}", d.issue)
	m.HandleFunc("GET /api/issue-table", d.issueTable)
	m.HandleFunc("GET /api/assignees", d.assignees)
	m.HandleFunc("GET /api/search", d.search)
	m.HandleFunc("GET /api/specs", d.specs)
	m.HandleFunc("GET /api/specs/{id}", d.spec)
	m.HandleFunc("GET /api/rulesets", d.rulesetList)
	m.HandleFunc("GET /api/rulesets/{name}", d.ruleset)
	m.HandleFunc("GET /api/files/matching", d.globMatches)
	m.HandleFunc("GET /api/tasks", d.tasks)
	m.HandleFunc("GET /api/tasks/{id}", d.task)
	m.HandleFunc("GET /api/tasks/{id}/logs", d.taskLogs)
	m.HandleFunc("GET /api/tasks/{id}/stream", d.taskStream)
	m.HandleFunc("GET /api/tasks/{id}/diff", d.taskDiff)
	m.HandleFunc("GET /api/workers", d.workers)
	d.writeRoutes(m)
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fault.New(fault.NotFound, "no such API: %s %s", r.Method, r.URL.Path))
	})
	d.mux = m
}

// ContentSecurityPolicy is sent with every response: only the page's own
// scripts, styles and images, no framing, no forms, no plugins.
const ContentSecurityPolicy = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// ServeHTTP serves the page and the APIs.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if rebound(r) {
		http.Error(w, "forbidden: invalid Host header "+r.Host, http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !d.originAllowed(origin, r.Host) {
		http.Error(w, "forbidden: origin "+origin+" is not allowed", http.StatusForbidden)
		return
	}
	if r.ContentLength > maxBody {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if !d.authorized(w, r) {
		return
	}
	d.mux.ServeHTTP(w, r)
}

// maxBody caps a request body: a spec's or a ruleset's markdown is the
// largest thing the page sends.
const maxBody = 4 << 20

// originAllowed accepts the page's own origin and what every server
// accepts (mcpx.OriginAllowed: the configured origins and local pages).
func (d *Dashboard) originAllowed(origin, host string) bool {
	if u, err := url.Parse(origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host == host {
		return true
	}
	return mcpx.OriginAllowed(origin, d.opts.AllowedOrigins)
}

// rebound reports a request that reached a loopback address under a name
// that is not loopback: a DNS-rebinding page reading the dashboard.
func rebound(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return false
	}
	lhost, _, err := net.SplitHostPort(local.String())
	if err != nil || !mcpx.IsLoopback(lhost) {
		return false
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return !mcpx.IsLoopback(host)
}

func (d *Dashboard) index(w http.ResponseWriter, r *http.Request) {
	page, err := assets.ReadFile("assets/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(page)
}

// Info is /api/info: what the page can show.
type Info struct {
	Version   string     `json:"version"`
	Dir       string     `json:"dir"`
	Endpoints []Endpoint `json:"endpoints"`
	Tracker   Avail      `json:"tracker"`
	Rulesets  Avail      `json:"rulesets"`
	Tasks     Avail      `json:"tasks"`
	// ReadOnly is true for a request without the token writes need;
	// WriteAccess then says how to get it.
	ReadOnly    bool   `json:"read_only"`
	WriteAccess string `json:"write_access,omitempty"`
}

// Avail says whether a part is available, and why not.
type Avail struct {
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	Hint      string `json:"hint,omitempty"`
}

func (d *Dashboard) info(w http.ResponseWriter, r *http.Request) {
	d.epMu.Lock()
	eps := append([]Endpoint{}, d.endpoints...)
	d.epMu.Unlock()
	in := Info{Version: d.opts.Version, Dir: d.opts.Dir, Endpoints: eps,
		Rulesets: Avail{Available: d.opts.Rulesets.Store != nil, Reason: "no ruleset store"},
		Tasks:    Avail{Available: d.opts.Tasks != nil, Reason: d.opts.TasksUnavailable}}
	if err := d.tracker.check(); err != nil {
		in.Tracker = Avail{Reason: err.Error(), Hint: fault.HintOf(err)}
	} else {
		in.Tracker.Available = true
	}
	if ok, _ := d.credential(r); !ok {
		in.ReadOnly, in.WriteAccess = true, d.writeAccess(r)
	}
	if in.Rulesets.Available {
		in.Rulesets.Reason = ""
	}
	if in.Tasks.Available {
		in.Tasks.Reason = ""
	}
	writeJSON(w, http.StatusOK, in)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b)
	w.Write([]byte("\n"))
}

// writeError answers err in the envelope the CLI's --json and the tracker's
// tools print.
func writeError(w http.ResponseWriter, status int, err error) {
	b, _ := json.Marshal(fault.EnvelopeOf(err))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b)
	w.Write([]byte("\n"))
}

// fail answers err with the status its code maps to.
func fail(w http.ResponseWriter, err error) {
	writeError(w, httpStatus(err), err)
}

// httpStatus is the dashboard's one mapping of a failure to an HTTP status.
func httpStatus(err error) int {
	if errors.Is(err, context.Canceled) {
		return 499 // the client went away
	}
	switch fault.CodeOf(err) {
	case fault.NotFound:
		return http.StatusNotFound
	case fault.Invalid:
		return http.StatusBadRequest
	case fault.Conflict:
		return http.StatusConflict
	case fault.Unavailable:
		return http.StatusServiceUnavailable
	case fault.Unauthenticated:
		return http.StatusUnauthorized
	case fault.PermissionDenied:
		return http.StatusForbidden
	}
	return http.StatusInternalServerError
}
