package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/serve"
)

// DefaultServeAddr is where `sudocode serve` listens unless told otherwise.
const DefaultServeAddr = "127.0.0.1:7474"

type serveOptions struct {
	addr, dir string
	worktrees string
	transport transportFlags
	store     storeFlags
}

func newServeCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &serveOptions{}
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
Binding anything but loopback needs a bearer token (--token or SUDOCODE_TOKEN,
or a token per client in --token-file), which every request must then carry;
a browser opens /?token=TOKEN once. Without a configured token, serve makes
one for the dashboard's changes and prints the address with it
(http://127.0.0.1:7474/?token=…): opened without it, the page only shows.
Tool calls can be rate-limited per client
and tool, and logged one JSON line each (--audit-log); Prometheus metrics are
at /metrics. Stops cleanly on SIGINT or SIGTERM.`,
		Example: `  sudocode serve
  sudocode serve --addr 127.0.0.1:0 --json
  claude mcp add --transport http tracker http://127.0.0.1:7474/mcp/tracker`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, g, o, stdio) },
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", DefaultServeAddr, "listen `ADDR` (host:port; port 0 picks a free one); loopback unless a token is set")
	f.StringVar(&o.dir, "dir", ".", "the project `DIR`: tracker, coding workspace and git repository")
	f.StringVar(&o.worktrees, "worktrees", "", "root `DIR` of the task worktrees, outside the repository (env SUDOCODE_WORKTREES; default $XDG_STATE_HOME/sudocode/worktrees)")
	f.StringVar(&o.transport.token, "token", "", "bearer `TOKEN` every request must send (env SUDOCODE_TOKEN); required for a non-loopback --addr")
	f.StringSliceVar(&o.transport.origins, "allow-origin", nil, "browser `ORIGIN` allowed besides loopback ones (repeatable)")
	f.StringVar(&o.transport.logLevel, "log-level", "", "log level on stderr: debug, info, warn, error (env SUDOCODE_LOG_LEVEL; default info)")
	o.transport.controlFlags.register(f)
	o.store.register(f)
	return cmd
}

// serveInfo is what serve prints at start with --json.
type serveInfo struct {
	URL         string            `json:"url"`
	Dir         string            `json:"dir"`
	MCP         map[string]string `json:"mcp"`
	Unavailable map[string]string `json:"unavailable"`
	Auth        bool              `json:"auth"`
	// Open is the address that gives a browser write access (with the
	// token made at start); absent when a configured token serves.
	Open string `json:"open,omitempty"`
}

func runServe(cmd *cobra.Command, g *globalOptions, o *serveOptions, stdio IO) error {
	ctx := cmd.Context()
	t := o.transport.transport()
	logger := mcpx.NewLogger(stdio.Err, o.transport.level())
	auth, calls, closeControls, err := o.transport.controls(t.Token, true, logger)
	if err != nil {
		return err
	}
	defer closeControls()
	t.Auth, t.Calls, t.Stateless = auth, calls, o.transport.isStateless()
	if t.BodyTimeout, err = o.transport.bodyTime(); err != nil {
		return err
	}
	if t.Sessions, err = o.transport.sessionLimits(); err != nil {
		return err
	}
	if err := t.CheckAddr(o.addr); err != nil {
		return usageError{err}
	}
	if st, err := os.Stat(o.dir); err != nil || !st.IsDir() {
		return usageError{fmt.Errorf("--dir %s: no such directory: serve a project that exists (default the current directory)", o.dir)}
	}
	store, err := o.store.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	srv, err := serve.New(ctx, serve.Options{Dir: o.dir, Rulesets: store, Token: t.Token, AllowedOrigins: t.AllowedOrigins,
		Version: Version, Actor: actor(), Logger: logger, Auth: auth, Calls: calls, BodyTimeout: t.BodyTimeout,
		Sessions: t.Sessions, Stateless: t.Stateless, Worktrees: o.worktrees})
	if err != nil {
		return err
	}
	defer srv.Close()
	if exe, err := os.Executable(); err == nil && srv.Orchestrator != nil {
		srv.Orchestrator.ServeTracker([]string{exe, "mcp"}) // agents get the tracker of their repository
	}
	t.HTTPAddr = o.addr
	ln, err := mcpx.Listen(t)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	info := serveInfo{URL: base + "/", Dir: srv.Dir(), MCP: map[string]string{}, Unavailable: map[string]string{}, Auth: auth.Enabled()}
	var paths []string
	for _, e := range srv.Endpoints() {
		info.MCP[e.Name] = base + e.Path
		if !e.Available {
			info.Unavailable[e.Name] = e.Reason
		}
		paths = append(paths, e.Path)
	}
	shown := info.URL
	if srv.WriteToken != "" {
		info.Open = info.URL + "?token=" + srv.WriteToken
		shown = info.Open
	}
	if g.json {
		writeJSON(stdio.Out, info)
	} else {
		fmt.Fprintf(stdio.Out, "sudocode serve: %s (MCP at %s)\n", shown, strings.Join(paths, ", "))
		for _, e := range srv.Endpoints() {
			if !e.Available {
				fmt.Fprintf(stdio.Out, "  %s unavailable: %s\n", e.Path, e.Reason)
			}
		}
		if info.Auth {
			fmt.Fprintln(stdio.Out, "  every request needs Authorization: Bearer <token>; in a browser, open /?token=<token> once")
		}
	}
	logger.Info("serving", "url", info.URL, "dir", info.Dir)
	return srv.Serve(ctx, ln)
}
