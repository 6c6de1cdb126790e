package cli

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	mcptracker "github.com/sudocode/sudocode/internal/mcpserver/tracker"
	"github.com/sudocode/sudocode/internal/mcpx"
)

func newMCPCmd(stdio IO) *cobra.Command {
	var tf transportFlags
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
init. SUDOCODE_ACTOR (default $USER) is recorded on changes. SUDOCODE_PATH is
accepted for compatibility and unused: nothing is spawned.

  claude mcp add sudocode -- sudocode mcp`,
		Args: groupArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger := mcpx.NewLogger(stdio.Err, tf.level())
			server := mcptracker.New(mcptracker.Options{Version: Version, Actor: actor(), Logger: logger})
			return mcpx.Serve(cmd.Context(), server, tf.transport(), logger)
		},
	}
	tf.register(cmd.Flags())
	cmd.AddCommand(newMCPRulesetsCmd(stdio), newMCPCodingCmd(stdio), newMCPAgentCmd(stdio))
	return cmd
}

// transportFlags are the flags every MCP server takes.
type transportFlags struct {
	http, token, logLevel string
	origins               []string
}

func (f *transportFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.http, "http", "", "serve Streamable HTTP at `ADDR` (host:port, path /mcp) instead of stdio; loopback unless a token is set")
	fs.StringVar(&f.token, "token", "", "bearer `TOKEN` HTTP clients must send (env SUDOCODE_TOKEN); required for a non-loopback --http")
	fs.StringSliceVar(&f.origins, "allow-origin", nil, "browser `ORIGIN` allowed besides loopback ones (repeatable)")
	fs.StringVar(&f.logLevel, "log-level", "", "log level on stderr: debug, info, warn, error (env SUDOCODE_LOG_LEVEL; default info)")
}

func (f *transportFlags) transport() mcpx.Transport {
	return mcpx.Transport{
		HTTPAddr:       f.http,
		Token:          orEnv(f.token, "SUDOCODE_TOKEN"),
		AllowedOrigins: f.origins,
	}
}

func (f *transportFlags) level() string { return orEnv(f.logLevel, "SUDOCODE_LOG_LEVEL") }

// orEnv gives a flag precedence over its environment variable.
func orEnv(flagValue, env string) string {
	if flagValue != "" {
		return flagValue
	}
	return os.Getenv(env)
}
