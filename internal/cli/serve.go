package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/serve"
)

// DefaultServeAddr is where `sudocode serve` listens unless told otherwise.
const DefaultServeAddr = "127.0.0.1:7474"

type serveOptions struct {
	addr, dir string
	worktrees string
	transport transportFlags
	auth      codeAuth
	store     storeFlags
	fleet     fleetFlags
	g         *globalOptions
	stdio     IO
}

func newServeCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &serveOptions{g: g, stdio: stdio}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve all four MCP servers over HTTP on one port, with a live web dashboard",
		Long: `Serve the tracker, rulesets, coding tools and agent orchestrator MCP servers over
Streamable HTTP on one loopback port, and a web dashboard at /:

  /mcp/tracker    the tracker (as "sudocode mcp")
  /mcp/rulesets   the ruleset library (as "sudocode mcp rulesets"; embedded store unless
                  Valkey is configured)
  /mcp/coding     the coding tools over the project directory (as "sudocode mcp coding")
  /mcp/agent      the agent orchestrator (tasks need a git repository)
  /               the dashboard: issues, specs with their feedback, rulesets and tasks,
                  viewed and changed there, updated live as things change

The project is the current directory (or --dir). The address and the endpoints
are printed at start (as JSON with --json); --addr 127.0.0.1:0 picks a free port.

The coding tools and the agent orchestrator run commands as you, so every
request needs a bearer token, on loopback too: --token (or SUDOCODE_TOKEN), or a
token per client in --token-file; else your own token, made at the first start
and kept in $XDG_STATE_HOME/sudocode/token (~/.local/state/sudocode/token, mode
0600), the same after a restart. serve prints the address with it
(http://127.0.0.1:7474/?token=…: open it once, and the browser gets a cookie of
the dashboard's own, which no MCP endpoint takes) and the configurations of
Claude Code, Codex and Cursor that carry it. --no-auth serves without a token:
any local process, any user on this machine and any web page that gets past
the Origin check can then run commands as you; loopback only.

The tasks' agents run through the fleet: a NATS JetStream server embedded in
this process (loopback, its store in $XDG_STATE_HOME/sudocode/fleet) and a
worker here that runs each agent in its task's worktree; workers of other
machines join with "sudocode workers add" and "sudocode worker". A task's run
goes on when serve is stopped or killed, and the next serve reads it on.
--fleet=false runs the agents as this process's own.

Tool calls can be rate-limited per client and tool, and logged one JSON line
each (--audit-log); Prometheus metrics are at /metrics. Stops cleanly on SIGINT
or SIGTERM.`,
		Example: `  sudocode serve
  sudocode serve --addr 127.0.0.1:0 --json
  claude mcp add --transport http sudocode-tracker http://127.0.0.1:7474/mcp/tracker \
    --header "Authorization: Bearer $(cat ~/.local/state/sudocode/token)"`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", DefaultServeAddr, "listen `ADDR` (host:port; port 0 picks a free one); loopback unless a token is set")
	f.StringVar(&o.dir, "dir", ".", "the project `DIR`: tracker, coding workspace and git repository")
	f.StringVar(&o.worktrees, "worktrees", "", "root `DIR` of the task worktrees, outside the repository (env SUDOCODE_WORKTREES; default $XDG_STATE_HOME/sudocode/worktrees)")
	f.StringVar(&o.transport.token, "token", "", "bearer `TOKEN` every request must send (env SUDOCODE_TOKEN; default your token kept in $XDG_STATE_HOME/sudocode/token)")
	o.auth.register(f)
	f.StringSliceVar(&o.transport.origins, "allow-origin", nil, "browser `ORIGIN` allowed besides loopback ones (repeatable)")
	f.StringVar(&o.transport.logLevel, "log-level", "", "log level on stderr: debug, info, warn, error (env SUDOCODE_LOG_LEVEL; default info)")
	o.transport.controlFlags.register(f)
	o.store.register(f)
	o.fleet.register(f)
	return cmd
}

// serveInfo is what serve prints at start with --json.
type serveInfo struct {
	URL         string            `json:"url"`
	Dir         string            `json:"dir"`
	MCP         map[string]string `json:"mcp"`
	Unavailable map[string]string `json:"unavailable"`
	Auth        bool              `json:"auth"`
	// Open is the address that opens the dashboard in a browser, with
	// write access: with the token, or with --no-auth the write token made
	// at start; absent with a token file alone.
	Open string `json:"open,omitempty"`
	// Token is the bearer token every request needs; absent with a token
	// file alone, and with --no-auth.
	Token string `json:"token,omitempty"`
	// TokenFile is where Token is kept when it is the user's own.
	TokenFile string `json:"token_file,omitempty"`
	// Clients are the configurations of MCP clients that carry Token.
	Clients *clientConfigs `json:"clients,omitempty"`
	// Fleet is the NATS server workers connect to, with --fleet.
	Fleet *fleetInfo `json:"fleet,omitempty"`
}

// fleetInfo is serve's fleet, in its start-up JSON.
type fleetInfo struct {
	NATS       string `json:"nats"`
	Repository string `json:"repository"` // the workers' repository (--fleet-remote reaches it from elsewhere)
}

func runServe(ctx context.Context, o *serveOptions) error {
	stdio := o.stdio
	logger := mcpx.NewLogger(stdio.Err, o.transport.level(stdio))
	if err := o.auth.settle(stdio, &o.transport, o.addr, logger); err != nil {
		return err
	}
	t := o.transport.transport(stdio)
	auth, calls, closeControls, err := o.transport.controls(stdio, t.Token, true, logger)
	if err != nil {
		return err
	}
	defer closeControls()
	t.Auth, t.Calls, t.Stateless = auth, calls, o.transport.isStateless(stdio)
	if t.BodyTimeout, err = o.transport.bodyTime(stdio); err != nil {
		return err
	}
	if t.Sessions, err = o.transport.sessionLimits(stdio); err != nil {
		return err
	}
	if err := t.CheckAddr(o.addr); err != nil {
		return usageError{err}
	}
	dir := stdio.path(o.dir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usageError{fmt.Errorf("--dir %s: no such directory: serve a project that exists (default the current directory)", o.dir)}
	}
	store, err := o.store.open(ctx, stdio)
	if err != nil {
		return err
	}
	defer store.Close()
	var fl *orchestrator.FleetSetup
	if o.fleet.enabled() {
		switch fl, err = o.fleet.start(ctx, stdio, dir, logger); {
		case err == nil:
			defer o.fleet.stop() // after the server closed: its tasks stop reading their runs first
		case o.fleet.asked():
			return err
		case fault.Is(err, fault.Invalid): // no git repository, so no tasks: serve says so
		default:
			// On by default, the fleet gives way (another serve on this
			// checkout holds it): the tasks run as without it.
			logger.Warn("the tasks run in this process, without the fleet", "reason", err.Error())
		}
	}
	srv, err := serve.New(ctx, serve.Options{Dir: dir, Rulesets: store, Token: t.Token, AllowedOrigins: t.AllowedOrigins,
		Version: Version, Actor: stdio.actor(), Logger: logger, Auth: auth, Calls: calls, BodyTimeout: t.BodyTimeout,
		Sessions: t.Sessions, Stateless: t.Stateless, Worktrees: stdio.path(stdio.orEnv(o.worktrees, orchestrator.EnvWorktrees)), NoAuth: o.auth.noAuth,
		TrackerCommand: stdio.trackerCommand(), Env: stdio.Env, Fleet: fl})
	if err != nil {
		return err
	}
	defer srv.Close()
	t.HTTPAddr = o.addr
	ln, err := mcpx.Listen(t)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	info := serveInfo{URL: base + "/", Dir: srv.Dir(), MCP: map[string]string{}, Unavailable: map[string]string{}, Auth: auth.Enabled(),
		Token: t.Token, TokenFile: o.auth.keptIn}
	var paths []string
	var clients []mcpEndpoint
	for _, e := range srv.Endpoints() {
		info.MCP[e.Name] = base + e.Path
		if !e.Available {
			info.Unavailable[e.Name] = e.Reason
		} else {
			clients = append(clients, mcpEndpoint{name: "sudocode-" + e.Name, url: base + e.Path})
		}
		paths = append(paths, e.Path)
	}
	if t.Token != "" {
		info.Clients = configsFor(clients, t.Token)
	}
	if o.fleet.host != nil {
		info.Fleet = &fleetInfo{NATS: o.fleet.host.URL, Repository: o.fleet.mirror}
	}
	shown := info.URL
	if srv.OpenToken != "" {
		info.Open = info.URL + "?token=" + srv.OpenToken
		shown = info.Open
	}
	if o.g.json {
		writeJSON(stdio.Out, info)
	} else {
		fmt.Fprintf(stdio.Out, "sudocode serve: %s (MCP at %s)\n", shown, strings.Join(paths, ", "))
		for _, e := range srv.Endpoints() {
			if !e.Available {
				fmt.Fprintf(stdio.Out, "  %s unavailable: %s\n", e.Path, e.Reason)
			}
		}
		if info.Fleet != nil {
			fmt.Fprintf(stdio.Out, "  the tasks run through the fleet at %s, against the workers' repository %s; another machine joins with sudocode workers add NAME\n", info.Fleet.NATS, info.Fleet.Repository)
			if o.fleet.unreachable() {
				fmt.Fprintf(stdio.Out, "  workers of other machines cannot fetch from that path: start serve with --fleet-remote ssh://THIS-HOST%s (the address they reach it by)\n", info.Fleet.Repository)
			}
		}
		switch {
		case info.Clients != nil:
			kept := ""
			if info.TokenFile != "" {
				kept = " (kept in " + info.TokenFile + ", the same after a restart)"
			}
			fmt.Fprintf(stdio.Out, "  every MCP request needs Authorization: Bearer %s%s; client configs:\n", t.Token, kept)
			info.Clients.print(stdio.Out)
		case info.Auth:
			fmt.Fprintln(stdio.Out, "  every request needs Authorization: Bearer <token> with a token of the token file; in a browser, open /?token=<token> once")
		default:
			fmt.Fprintln(stdio.Out, "  WITHOUT a token (--no-auth): anyone on this machine can run commands through /mcp/coding and /mcp/agent")
		}
	}
	logger.Info("serving", "url", info.URL, "dir", info.Dir)
	return srv.Serve(ctx, ln)
}
