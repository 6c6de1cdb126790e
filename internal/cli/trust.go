package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/orchestrator"
)

// trustOptions are the argument and flags of "sudocode trust".
type trustOptions struct {
	g            *globalOptions
	stdio        IO
	dir          string
	show, revoke bool
}

func newTrustCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &trustOptions{g: g, stdio: stdio}
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Let the commands of this checkout's .sudocode/agent.json run (show, trust, revoke)",
		Long: `Show the commands of the project's .sudocode/agent.json (setup, copy,
merge.check, cleanup) and trust that exact file, so that they run: setup and
copy at task start, merge.check before a merge, cleanup when a task ends.

The file is part of the repository: a pull or an agent can change it. So its
commands run only once you trusted it, and only as long as its bytes are the
ones you trusted (their SHA-256 is recorded, with the checkout's path, in
$XDG_STATE_HOME/sudocode/trust, else ~/.local/state/sudocode/trust): after any
change they are refused again until you read and trust the file anew, as
direnv allow and mise trust work. Even trusted, they run in the sandbox, with
the task's worktree as their only writable place. A file without commands
needs no trust.

DIR is any directory of the checkout (default the working directory).
With --json: {project, file, exists, sha256, state, commands: [{setting,
command}], trusted_at}; state is not_needed, trusted, untrusted or changed.`,
		Example: `  sudocode trust --show     # read the commands first
  sudocode trust            # then trust them
  sudocode trust --revoke`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.MaximumNArgs(1)(cmd, args); err != nil {
				return usageError{err}
			}
			if o.show && o.revoke {
				return usageError{fmt.Errorf("--show and --revoke do not go together")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.dir = "."
			if len(args) == 1 {
				o.dir = args[0]
			}
			return runTrust(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.show, "show", false, "only show the commands and whether they are trusted")
	cmd.Flags().BoolVar(&o.revoke, "revoke", false, "forget the trust given to the file")
	return cmd
}

func runTrust(ctx context.Context, o *trustOptions) error {
	out, dir := o.stdio.Out, o.stdio.path(o.dir)
	var pt orchestrator.ProjectTrust
	var err error
	var revoked bool
	switch {
	case o.show:
		pt, err = orchestrator.TrustOf(ctx, dir, o.stdio.Env)
	case o.revoke:
		pt, revoked, err = orchestrator.RevokeTrust(ctx, dir, o.stdio.Env)
	default:
		pt, err = orchestrator.TrustFile(ctx, dir, "", o.stdio.Env)
	}
	if err != nil {
		return err
	}
	if o.g.json {
		return writeJSON(out, pt)
	}
	printTrust(out, pt)
	switch {
	case o.revoke && revoked:
		fmt.Fprintln(out, "revoked: its commands no longer run until you trust it again")
	case o.revoke:
		fmt.Fprintln(out, "it was not trusted; nothing to revoke")
	}
	return nil
}

// printTrust shows the file, its commands and its state.
func printTrust(w io.Writer, pt orchestrator.ProjectTrust) {
	if !pt.Exists {
		fmt.Fprintf(w, "%s does not exist: there are no commands to trust\n", pt.File)
		return
	}
	fmt.Fprintf(w, "%s (sha256 %s)\n", pt.File, pt.SHA256)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range pt.Commands {
		fmt.Fprintf(tw, "  %s:\t%s\n", c.Setting, c.Command)
	}
	tw.Flush()
	switch pt.State {
	case orchestrator.TrustNotNeeded:
		fmt.Fprintln(w, "it has no commands: nothing needs trust")
	case orchestrator.TrustTrusted:
		fmt.Fprintf(w, "trusted (since %s): these commands run, in the sandbox; a change to the file must be trusted again\n",
			pt.TrustedAt.Local().Format("2006-01-02 15:04"))
	case orchestrator.TrustChanged:
		fmt.Fprintln(w, "not trusted: the file changed since you trusted it; read the commands, then run `sudocode trust`")
	default:
		fmt.Fprintln(w, "not trusted: read the commands, then run `sudocode trust` to let them run")
	}
}
