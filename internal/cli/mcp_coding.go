package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/procs"
)

type mcpCodingOptions struct {
	workspace, host, authToken string
	port                       int
	stdio, viewImage, danger   bool
	network                    bool
	origins                    []string
	controls                   controlFlags
	// Whether --enable-view-image and --allow-network were given: only
	// then do they win over their environment variables.
	viewImageSet, networkSet bool
	io                       IO
}

// MainCodingTools runs coding-tools-mcp: "sudocode mcp coding" under the
// name its users know.
func MainCodingTools(ctx context.Context, args []string, stdio IO) int {
	cmd := newMCPCodingCmd(stdio)
	cmd.Use = "coding-tools-mcp"
	return run(ctx, cmd, args, stdio)
}

func newMCPCodingCmd(stdio IO) *cobra.Command {
	o := &mcpCodingOptions{io: stdio}
	cmd := &cobra.Command{
		Use:   "coding",
		Short: "Serve the coding tools over one workspace (profile coding-tools-mcp-v0.1)",
		Long: `Serve read_file, list_dir, list_files, search_text, apply_patch, exec_command,
write_stdin, kill_session, git_status, git_diff, request_permissions and view_image
over one workspace directory. Every path is confined to the workspace.

Transport: Streamable HTTP at http://HOST:PORT/mcp (JSON responses), or --stdio.
A --host that is not loopback needs a bearer token (--auth-token, or a token
per client in --token-file). Over HTTP, Prometheus metrics are at /metrics.
Browsers may call it from loopback pages and from each --allow-origin, as
the other servers. --token and SUDOCODE_TOKEN, the other servers' names for
the bearer token, are aliases of --auth-token and CODING_TOOLS_MCP_AUTH_TOKEN.

Environment: CODING_TOOLS_MCP_WORKSPACE (the workspace; --workspace wins),
CODING_TOOLS_MCP_AUTH_TOKEN (else SUDOCODE_TOKEN),
CODING_TOOLS_MCP_ENABLE_VIEW_IMAGE=0 (drops view_image),
CODING_TOOLS_MCP_EXEC_ALLOW_ROOTS (extra read/exec dirs for commands, ':'-separated;
one that would expose a credential store such as ~/.ssh is refused),
CODING_TOOLS_MCP_ALLOW_NETWORK=1 (as --allow-network),
CODING_TOOLS_MCP_TRACE=1 (one JSON line per tool call on stderr); and, as for
every server, SUDOCODE_TOKEN_FILE, SUDOCODE_AUDIT_LOG, SUDOCODE_RATE_LIMIT,
SUDOCODE_RATE_LIMIT_TOOL, SUDOCODE_BODY_TIMEOUT, SUDOCODE_MAX_SESSIONS_PER_CLIENT,
SUDOCODE_MAX_SESSIONS and SUDOCODE_SESSION_IDLE_TIMEOUT.`,
		Example: `  coding-tools-mcp --workspace ~/src/project --port 8765
  coding-tools-mcp --workspace . --stdio`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.viewImageSet, o.networkSet = cmd.Flags().Changed("enable-view-image"), cmd.Flags().Changed("allow-network")
			return runMCPCoding(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.workspace, "workspace", "", "the workspace `DIR` (env CODING_TOOLS_MCP_WORKSPACE; default the current directory)")
	f.BoolVar(&o.stdio, "stdio", false, "speak newline-delimited JSON-RPC on stdin/stdout instead of HTTP")
	f.StringVar(&o.host, "host", "127.0.0.1", "HTTP bind host; non-loopback needs --auth-token")
	f.IntVar(&o.port, "port", 8000, "HTTP port (0 picks a free one)")
	f.BoolVar(&o.viewImage, "enable-view-image", true, "list the view_image tool (env CODING_TOOLS_MCP_ENABLE_VIEW_IMAGE=0 disables)")
	f.BoolVar(&o.danger, "dangerously-skip-all-permissions", false, "let commands the policy gates run (never workspace escapes or setuid programs)")
	f.BoolVar(&o.network, "allow-network", false, "let commands use TCP (the kernel denies bind and connect otherwise; env CODING_TOOLS_MCP_ALLOW_NETWORK=1)")
	f.StringVar(&o.authToken, "auth-token", "", "bearer `TOKEN` every HTTP request must carry (alias --token; env CODING_TOOLS_MCP_AUTH_TOKEN, else SUDOCODE_TOKEN)")
	f.StringSliceVar(&o.origins, "allow-origin", nil, "browser `ORIGIN` allowed besides loopback ones (repeatable)")
	// One bearer token setting for every server: --token, the others'
	// name, is read as the coding tools' --auth-token (docs/coding-tools.md#http-transport).
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "token" {
			name = "auth-token"
		}
		return pflag.NormalizedName(name)
	})
	o.controls.register(f)
	return cmd
}

func runMCPCoding(ctx context.Context, o *mcpCodingOptions) error {
	stdio := o.io
	dir := stdio.orEnv(o.workspace, "CODING_TOOLS_MCP_WORKSPACE")
	if dir == "" {
		dir = "."
	}
	root, err := workspace.Open(stdio.path(dir))
	if err != nil {
		return usageError{err}
	}
	token := stdio.orEnv(stdio.orEnv(o.authToken, "CODING_TOOLS_MCP_AUTH_TOKEN"), "SUDOCODE_TOKEN")
	viewImage := o.viewImage
	if !o.viewImageSet && stdio.Getenv("CODING_TOOLS_MCP_ENABLE_VIEW_IMAGE") == "0" {
		viewImage = false
	}
	var allow []string
	for _, d := range filepath.SplitList(stdio.Getenv("CODING_TOOLS_MCP_EXEC_ALLOW_ROOTS")) {
		if d != "" {
			allow = append(allow, stdio.path(d))
		}
	}
	if err := procs.CheckAllowRoots(allow); err != nil {
		return usageError{err}
	}
	network := o.network || (!o.networkSet && stdio.Getenv("CODING_TOOLS_MCP_ALLOW_NETWORK") == "1")
	logger := mcpx.NewLogger(stdio.Err, "info")
	auth, calls, closeControls, err := o.controls.controls(stdio, token, !o.stdio, logger)
	if err != nil {
		return err
	}
	defer closeControls()
	bodyTimeout, err := o.controls.bodyTime(stdio)
	if err != nil {
		return err
	}
	sessions, err := o.controls.sessionLimits(stdio)
	if err != nil {
		return err
	}
	if o.danger {
		fmt.Fprintln(stdio.Err, "WARNING: --dangerously-skip-all-permissions: gated commands run without asking; only workspace escapes and setuid programs stay refused")
	}
	// The transport every server shares: the same tokens, allowed
	// origins, session limits, body timeout and call controls, and the
	// same bind check, host guard and listener as the others.
	t := mcpx.Transport{HTTPAddr: net.JoinHostPort(strings.Trim(o.host, "[]"), strconv.Itoa(o.port)), Token: token,
		AllowedOrigins: o.origins, MaxBodyBytes: mcpcoding.MaxBodyBytes, BodyTimeout: bodyTimeout, Sessions: sessions,
		Name: mcpcoding.ServerName, Caller: stdio.actor(), Auth: auth, Calls: calls, Stateless: o.controls.isStateless(stdio)}
	s := mcpcoding.New(root, mcpcoding.Options{Version: Version, ViewImage: viewImage, Dangerous: o.danger, AllowNetwork: network,
		Trace: stdio.Getenv("CODING_TOOLS_MCP_TRACE") == "1", TraceOut: stdio.Err, ExecAllowRoots: allow, Logger: logger, Transport: t})
	defer s.Close(ctx)
	if o.stdio {
		return s.ServeStdio(ctx, stdio.In, stdio.Out)
	}
	if err := t.CheckAddr(t.HTTPAddr); err != nil {
		return usageError{err}
	}
	ln, err := mcpx.ListenTCP(t.HTTPAddr)
	if err != nil {
		return err
	}
	logger.Info("serving coding tools", "url", "http://"+ln.Addr().String()+"/mcp", "workspace", root.Path)
	return mcpx.ServeHTTP(ctx, ln, codingHandler(s, t), t.BodyTimeout, logger)
}

// codingHandler is the coding server's HTTP handler, and its metrics at
// /metrics behind the shared checks (tokens, origins, body size).
// Every other path is the coding server's, which answers it per its
// profile.
func codingHandler(s *mcpcoding.Server, t mcpx.Transport) http.Handler {
	h := s.HTTPHandler()
	if t.Calls == nil || t.Calls.Metrics == nil {
		return h
	}
	t.Calls.Metrics.WatchSessions(mcpcoding.ServerName, s.Sessions)
	metrics := mcpx.Guard(t.Calls.Metrics.Handler(), t)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == mcpx.MetricsPath {
			metrics.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}
