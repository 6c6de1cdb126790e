// Command coding-tools-mcp is the coding-tools MCP server over one
// workspace: Streamable HTTP at /mcp by default, --stdio for stdio. It is
// the same server as "sudocode mcp coding".
package main

import (
	"os"

	"github.com/sudocode/sudocode/internal/cli"
	"github.com/sudocode/sudocode/internal/sandbox"
)

func main() {
	// The sandbox helper the exec tools re-execute this binary as
	// (it never returns); a no-op otherwise.
	sandbox.MaybeRunHelper()
	os.Exit(cli.MainCodingTools(cli.SignalContext(), os.Args[1:], cli.StdIO()))
}
