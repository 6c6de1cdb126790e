package cli

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sudocode/sudocode/internal/mcpx"
)

func newMCPCmd(stdio IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Run an MCP server (stdio by default, Streamable HTTP with --http)",
		Args:  groupArgs,
		RunE:  groupHelp,
	}
	cmd.AddCommand(newMCPRulesetsCmd(stdio))
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
