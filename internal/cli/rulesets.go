package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// rulesetsOptions are shared by the "sudocode rulesets" commands. Each
// command has options of its own that embed them, a constructor that
// binds its arguments and flags (newRulesetsXxxCmd) and a run function
// (runRulesetsXxx) that works from the options alone.
type rulesetsOptions struct {
	store storeFlags
	g     *globalOptions
	stdio IO
}

func newRulesetsCmd(g *globalOptions, stdio IO) *cobra.Command {
	opts := &rulesetsOptions{g: g, stdio: stdio}
	cmd := &cobra.Command{
		Use:   "rulesets",
		Short: "Manage the ruleset library from the shell (same store and texts as the MCP server)",
		Args:  groupArgs,
		RunE:  groupHelp,
	}
	opts.store.register(cmd.PersistentFlags())
	cmd.AddCommand(
		newRulesetsListCmd(opts),
		newRulesetsSearchCmd(opts),
		newRulesetsGetCmd(opts),
		newRulesetsPutCmd(opts),
		newRulesetsCreateCmd(opts),
		newRulesetsDeleteCmd(opts),
		newRulesetsHistoryCmd(opts),
		newRulesetsImportCmd(opts),
		newRulesetsExportCmd(opts),
		newRulesetsResolveCmd(opts),
		newRulesetsDiffCmd(opts),
		newRulesetsRestoreCmd(opts),
	)
	return cmd
}

// withLibrary opens the store for one command on the ruleset name (""
// for none). Its errors' hints name the CLI's commands where the
// library's name an MCP tool.
func (o *rulesetsOptions) withLibrary(ctx context.Context, name string, fn func(rulesets.Library) error) error {
	store, err := o.store.open(ctx, o.stdio)
	if err != nil {
		return err
	}
	defer store.Close()
	return shellHint(fn(rulesets.Library{Store: store, Actor: o.stdio.actor()}), name)
}

// shellHint is err with its hint in the shell's words when the hint names
// an MCP tool; name is the ruleset's the command is on.
func shellHint(err error, name string) error {
	fe, ok := err.(*fault.Error)
	if !ok {
		return err
	}
	switch fe.Hint {
	case rulesets.HintList:
		return fe.WithHint("run `sudocode rulesets list` to see the available names")
	case rulesets.HintUpsert:
		if name == "" {
			name = "NAME"
		}
		return fe.WithHint("use `sudocode rulesets put " + name + "` to change an existing ruleset")
	}
	return err
}

// print writes v as indented JSON with --json, else text, on stdout.
func (o *rulesetsOptions) print(v any, text string) error {
	if !o.g.json {
		_, err := io.WriteString(o.stdio.Out, text)
		return err
	}
	return writeJSON(o.stdio.Out, v)
}

// forTerminal is a list's text as the MCP tool gives it, or on a terminal
// the same list as plain text: the tool's markdown bold around each name
// and Go's [a b] for the tags would show there as they are. Piped, the
// text stays the server's, for scripts that compare the two.
func forTerminal(w io.Writer, text string, items []rulesets.Summary) string {
	if !isTerminal(w) || len(items) == 0 {
		return text
	}
	header, _, _ := strings.Cut(text, "\n")
	var b strings.Builder
	b.WriteString(header + "\n\n")
	for _, it := range items {
		tags := "none"
		if len(it.Tags) > 0 {
			tags = strings.Join(it.Tags, ", ")
		}
		fmt.Fprintf(&b, "- %s: %s\n  Tags: %s\n  Created: %s, Modified: %s\n\n",
			it.Name, it.Description, tags, rulesets.Display(it.CreatedAt), rulesets.Display(it.LastModified))
	}
	return b.String()
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
