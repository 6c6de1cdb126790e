// Command sudocode is the workbench's one binary: MCP servers for AI coding
// agents and the CLI to manage what they share.
package main

import (
	"os"

	"github.com/sudocode/sudocode/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], cli.StdIO())) }
