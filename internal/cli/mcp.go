package cli

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/mcptracker"
	"github.com/sudocode/sudocode/internal/mcpx"
)

// mcpTrackerOptions are the flags of "sudocode mcp", the tracker's server.
type mcpTrackerOptions struct {
	transport transportFlags
	stdio     IO
}

func newMCPCmd(stdio IO) *cobra.Command {
	o := &mcpTrackerOptions{stdio: stdio}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Run the tracker's MCP server; mcp rulesets, mcp coding and mcp agent run the others",
		Long: `Serve the tracker over MCP (stdio by default, Streamable HTTP with --http):
the tools of "sudocode ready", "issue", "spec", "link", "feedback", "stats",
"status" and "init", plus search and batch create/update, the resources
sudocode://quickstart and sudocode://workflow, and the prompts start_next_task
and review_spec. The tools run in-process on the same code as the CLI and
return what its --json prints.

The tracker is the .sudocode found from SUDOCODE_WORKING_DIR (or SUDOCODE_DB, or
the working directory), looked up at each call, so the server can start before
init. SUDOCODE_ACTOR (default $USER) is recorded on changes; over HTTP with
--token-file, the name of the caller's token is. SUDOCODE_PATH is accepted for
compatibility and unused: nothing is spawned.

  claude mcp add sudocode -- sudocode mcp`,
		Args: groupArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMCPTracker(cmd.Context(), o) },
	}
	o.transport.register(cmd.Flags())
	cmd.AddCommand(newMCPRulesetsCmd(stdio), newMCPCodingCmd(stdio), newMCPAgentCmd(stdio))
	return cmd
}

func runMCPTracker(ctx context.Context, o *mcpTrackerOptions) error {
	env := o.stdio
	logger := mcpx.NewLogger(env.Err, o.transport.level(env))
	t, closeT, err := o.transport.open(env, "tracker", logger)
	if err != nil {
		return err
	}
	defer closeT()
	p, err := app.Open(ctx, app.Options{WorkDir: env.Dir, Env: env.Env, Actor: env.actor(), TrackerFromEnv: true})
	if err != nil {
		return err
	}
	defer p.Close()
	server := mcptracker.New(mcptracker.Options{Tracker: p.Tracker, Version: Version, Actor: env.actor(), Logger: logger, Tasks: issueTasks,
		IssueUsage: issueUsage, ProjectUsage: projectUsage})
	return mcpx.Serve(ctx, server, t, logger)
}

// transportFlags are the flags every MCP server takes.
type transportFlags struct {
	http, token, logLevel string
	origins               []string
	controlFlags
}

// controlFlags are what every server's calls go through when it serves a
// team: more tokens, an audit log, rate limits. coding-tools-mcp and serve
// take them too.
type controlFlags struct {
	tokenFile, auditLog, rateLimit string
	toolRates                      []string
	bodyTimeout, sessionIdle       time.Duration
	sessionsPerClient, sessions    int
	stateless                      bool
}

func (f *transportFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.http, "http", "", "serve Streamable HTTP at `ADDR` (host:port, path /mcp, Prometheus metrics at /metrics) instead of stdio; loopback unless a token is set")
	fs.StringVar(&f.token, "token", "", "bearer `TOKEN` HTTP clients must send (env SUDOCODE_TOKEN); required for a non-loopback --http")
	fs.StringSliceVar(&f.origins, "allow-origin", nil, "browser `ORIGIN` allowed besides loopback ones (repeatable)")
	fs.StringVar(&f.logLevel, "log-level", "", "log level on stderr: debug, info, warn, error (env SUDOCODE_LOG_LEVEL; default info)")
	f.controlFlags.register(fs)
}

func (f *controlFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.tokenFile, "token-file", "", "`FILE` of bearer tokens, one \"NAME TOKEN\" per line, read again when it changes (env SUDOCODE_TOKEN_FILE); NAME is recorded as the author of the caller's changes")
	fs.StringVar(&f.auditLog, "audit-log", "", "append a JSON line per tool call to `FILE`, - for stderr; rotated at 10 MiB, 3 kept (env SUDOCODE_AUDIT_LOG)")
	fs.StringVar(&f.rateLimit, "rate-limit", "", "tool calls each client may make: `N/UNIT[:BURST]` with UNIT s, m or h, e.g. 20/s (env SUDOCODE_RATE_LIMIT)")
	fs.StringArrayVar(&f.toolRates, "rate-limit-tool", nil, "calls each client may make of one tool: `TOOL=RATE`, e.g. exec_command=5/s (repeatable; env SUDOCODE_RATE_LIMIT_TOOL, comma-separated)")
	fs.DurationVar(&f.bodyTimeout, "body-timeout", 0, "time a client has to send a request body over HTTP, e.g. 30s (env SUDOCODE_BODY_TIMEOUT; default 30s)")
	fs.IntVar(&f.sessionsPerClient, "max-sessions-per-client", 0, "MCP sessions one client may hold open over HTTP (env SUDOCODE_MAX_SESSIONS_PER_CLIENT; default 64)")
	fs.IntVar(&f.sessions, "max-sessions", 0, "MCP sessions held open over HTTP in all (env SUDOCODE_MAX_SESSIONS; default 1024)")
	fs.BoolVar(&f.stateless, "stateless", false, "serve every HTTP request on its own, with no MCP session, so that several instances behind a load balancer can share the work (env SUDOCODE_STATELESS=1); without it, only 2026-07-28 clients are served so")
	fs.DurationVar(&f.sessionIdle, "session-idle-timeout", 0, "close an MCP session unused this long, e.g. 30m (env SUDOCODE_SESSION_IDLE_TIMEOUT; default 30m); the coding server's one session per client stays")
}

// isStateless is --stateless, else SUDOCODE_STATELESS=1.
func (f *controlFlags) isStateless(env IO) bool {
	return f.stateless || env.Getenv("SUDOCODE_STATELESS") == "1"
}

// sessionLimits is the count of HTTP sessions the flags (else their
// environment variables, else the defaults) ask for.
func (f *controlFlags) sessionLimits(env IO) (*mcpx.Sessions, error) {
	perClient, err := countFlag(env, "max-sessions-per-client", f.sessionsPerClient, "SUDOCODE_MAX_SESSIONS_PER_CLIENT")
	if err != nil {
		return nil, err
	}
	total, err := countFlag(env, "max-sessions", f.sessions, "SUDOCODE_MAX_SESSIONS")
	if err != nil {
		return nil, err
	}
	idle, err := durationFlag(env, "session-idle-timeout", f.sessionIdle, "SUDOCODE_SESSION_IDLE_TIMEOUT")
	if err != nil {
		return nil, err
	}
	return mcpx.NewSessions(mcpx.SessionLimits{PerClient: perClient, Total: total, Idle: idle}), nil
}

// countFlag is a positive count from its flag, else its environment
// variable; 0 when neither is set.
func countFlag(e IO, name string, flagValue int, env string) (int, error) {
	n := flagValue
	if n == 0 {
		if v := e.Getenv(env); v != "" {
			parsed, err := strconv.Atoi(v)
			if err != nil {
				return 0, usageError{fmt.Errorf("%s=%q: want a whole number", env, v)}
			}
			n = parsed
		}
	}
	if n < 0 {
		return 0, usageError{fmt.Errorf("--%s (%s) must be positive, got %d", name, env, n)}
	}
	return n, nil
}

// bodyTime is --body-timeout, else SUDOCODE_BODY_TIMEOUT; 0 for the default.
func (f *controlFlags) bodyTime(env IO) (time.Duration, error) {
	return durationFlag(env, "body-timeout", f.bodyTimeout, "SUDOCODE_BODY_TIMEOUT")
}

// durationFlag is a positive duration from its flag, else its environment
// variable; 0 when neither is set.
func durationFlag(e IO, name string, flagValue time.Duration, env string) (time.Duration, error) {
	d := flagValue
	if d == 0 {
		if v := e.Getenv(env); v != "" {
			parsed, err := time.ParseDuration(v)
			if err != nil {
				return 0, usageError{fmt.Errorf("%s=%q: want a duration such as 30s or 5m", env, v)}
			}
			d = parsed
		}
	}
	if d < 0 {
		return 0, usageError{fmt.Errorf("--%s (%s) must be positive, got %v", name, env, d)}
	}
	return d, nil
}

func (f *transportFlags) transport(env IO) mcpx.Transport {
	return mcpx.Transport{
		HTTPAddr:       f.http,
		Token:          env.orEnv(f.token, "SUDOCODE_TOKEN"),
		AllowedOrigins: f.origins,
	}
}

// open is the transport of the server called name with its controls: the
// tokens (over HTTP), the audit log, the rate limits and, over HTTP, the
// metrics. closeFn closes the audit log.
func (f *transportFlags) open(env IO, name string, logger *slog.Logger) (t mcpx.Transport, closeFn func(), err error) {
	t = f.transport(env)
	t.Name, t.Caller, t.Stateless = name, env.actor(), f.isStateless(env)
	t.In, t.Out = env.In, env.Out
	if t.BodyTimeout, err = f.bodyTime(env); err != nil {
		return t, func() {}, err
	}
	if t.Sessions, err = f.sessionLimits(env); err != nil {
		return t, func() {}, err
	}
	t.Auth, t.Calls, closeFn, err = f.controls(env, t.Token, t.HTTPAddr != "", logger)
	return t, closeFn, err
}

// controls opens what the flags ask for. The tokens (token, the single
// one, and the token file) and the metrics are for HTTP only.
func (f *controlFlags) controls(env IO, token string, http bool, logger *slog.Logger) (*mcpx.Auth, *mcpx.Calls, func(), error) {
	nothing := func() {}
	var auth *mcpx.Auth
	if http {
		a, err := mcpx.NewAuth(token, env.path(env.orEnv(f.tokenFile, "SUDOCODE_TOKEN_FILE")), logger)
		if err != nil {
			return nil, nil, nothing, usageError{err}
		}
		auth = a
	}
	client := mcpx.Rate{}
	if spec := env.orEnv(f.rateLimit, "SUDOCODE_RATE_LIMIT"); spec != "" {
		r, err := mcpx.ParseRate(spec)
		if err != nil {
			return nil, nil, nothing, usageError{fmt.Errorf("--rate-limit: %w", err)}
		}
		client = r
	}
	specs := f.toolRates
	if len(specs) == 0 {
		specs = strings.FieldsFunc(env.Getenv("SUDOCODE_RATE_LIMIT_TOOL"), func(r rune) bool { return r == ',' || r == ' ' })
	}
	tools := map[string]mcpx.Rate{}
	for _, spec := range specs {
		name, r, err := mcpx.ParseToolRate(spec)
		if err != nil {
			return nil, nil, nothing, usageError{fmt.Errorf("--rate-limit-tool: %w", err)}
		}
		tools[name] = r
	}
	calls := &mcpx.Calls{Limits: mcpx.NewLimiter(client, tools), Logger: logger}
	if http {
		calls.Metrics = mcpx.NewMetrics()
	}
	if path := env.orEnv(f.auditLog, "SUDOCODE_AUDIT_LOG"); path != "" {
		audit, err := openAudit(env, path)
		if err != nil {
			return nil, nil, nothing, usageError{err}
		}
		calls.Audit = audit
		nothing = func() { audit.Close() }
	}
	return auth, calls, nothing, nil
}

// openAudit opens the audit log at path, taken from the working
// directory; "-" is the command's stderr.
func openAudit(env IO, path string) (*mcpx.AuditLog, error) {
	if path == "-" {
		return mcpx.NewAuditStream(env.Err), nil
	}
	return mcpx.OpenAuditLog(env.path(path), 0, 0)
}

func (f *transportFlags) level(env IO) string { return env.orEnv(f.logLevel, "SUDOCODE_LOG_LEVEL") }
