// Command mcp-ruleset-server is the MCP Ruleset Server on stdio, the same
// server as "sudocode mcp rulesets", under its own name.
package main

import (
	"os"

	"github.com/sudocode/sudocode/internal/cli"
)

func main() { os.Exit(cli.MainRulesetServer(cli.SignalContext(), os.Args[1:], cli.StdIO())) }
