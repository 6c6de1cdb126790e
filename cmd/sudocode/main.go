// Command sudocode is the workbench's one binary: MCP servers for AI coding
// agents and the CLI to manage what they share.
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
	os.Exit(cli.Main(cli.SignalContext(), os.Args[1:], cli.StdIO()))
}
