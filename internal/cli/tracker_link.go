package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// linkOptions are the arguments of link and unlink.
type linkOptions struct {
	trackerCmd
	from, to, typ string
}

func newLinkCmd(tc trackerCmd) *cobra.Command {
	return withLinkArgs(tc, &cobra.Command{
		Use:   "link FROM TO",
		Short: "Link two issues or specs (default type references)",
		Long:  "Link two issues or specs. Unknown ids, self-links and links that would make a cycle of blocking (or parent-child) links are refused.\n\n" + relHelp,
		Example: `  sudocode link sudocode-b2c3 sudocode-a1b2 --type blocks     # b2c3 waits for a1b2 (until it is closed)
  sudocode link sudocode-a1b2 sudocode-spec-x9y8 --type implements`,
	}, "blocks, implements, references, depends-on, parent-child, discovered-from or related", runLink)
}

func newUnlinkCmd(tc trackerCmd) *cobra.Command {
	return withLinkArgs(tc, &cobra.Command{Use: "unlink FROM TO", Short: "Remove a link"}, "the link's type", runUnlink)
}

// withLinkArgs completes cmd, a command on FROM TO --type, to run run.
func withLinkArgs(tc trackerCmd, cmd *cobra.Command, typeHelp string, run func(context.Context, *linkOptions) error) *cobra.Command {
	o := &linkOptions{trackerCmd: tc}
	cmd.Args = exactArgs(2)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.from, o.to = args[0], args[1]
		return run(cmd.Context(), o)
	}
	cmd.Flags().StringVarP(&o.typ, "type", "t", string(tracker.DefaultRelType), typeHelp)
	return cmd
}

func runLink(ctx context.Context, o *linkOptions) error {
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.LinkResult, error) { return r.Link(ctx, o.from, o.to, o.typ) },
		func(w io.Writer, res tracker.LinkResult) {
			fmt.Fprintf(w, "Linked: %s [%s]\n", res.Type.Reads(res.From, res.To), res.Type)
		})
}

func runUnlink(ctx context.Context, o *linkOptions) error {
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.LinkResult, error) { return r.Unlink(ctx, o.from, o.to, o.typ) },
		func(w io.Writer, res tracker.LinkResult) {
			fmt.Fprintf(w, "Removed the link: %s [%s]\n", res.Type.Reads(res.From, res.To), res.Type)
		})
}
