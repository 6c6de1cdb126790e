// Command coding-tools-mcp is the coding-tools MCP server over one
// workspace: Streamable HTTP at /mcp by default, --stdio for stdio. It is
// the same server as "sudocode mcp coding".
package main

import (
	"os"

	"github.com/sudocode/sudocode/internal/cli"
)

func main() { os.Exit(cli.MainCodingTools(os.Args[1:], cli.StdIO())) }
