package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/tracker/store"
)

func newLinkCmd(tc trackerCmd) *cobra.Command {
	var typ string
	cmd := &cobra.Command{
		Use:   "link FROM TO",
		Short: "Link two issues or specs (default type references)",
		Long:  "Link two issues or specs. Unknown ids, self-links and links that would make a cycle of blocking (or parent-child) links are refused.\n\n" + relHelp,
		Example: `  sudocode link sudocode-b2c3 sudocode-a1b2 --type blocks     # b2c3 waits until a1b2 is closed
  sudocode link sudocode-a1b2 sudocode-spec-x9y8 --type implements`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				res, err := r.Link(cmd.Context(), args[0], args[1], typ)
				if err != nil {
					return err
				}
				return tc.print(res, func(w io.Writer) { fmt.Fprintf(w, "Linked %s %s %s\n", res.From, res.Type, res.To) })
			})
		},
	}
	cmd.Flags().StringVarP(&typ, "type", "t", "references", "blocks, implements, references, depends-on, parent-child, discovered-from or related")
	return cmd
}

func newUnlinkCmd(tc trackerCmd) *cobra.Command {
	var typ string
	cmd := &cobra.Command{
		Use:   "unlink FROM TO",
		Short: "Remove a link",
		Args:  exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				res, err := r.Unlink(cmd.Context(), args[0], args[1], typ)
				if err != nil {
					return err
				}
				return tc.print(res, func(w io.Writer) { fmt.Fprintf(w, "Unlinked %s %s %s\n", res.From, res.Type, res.To) })
			})
		},
	}
	cmd.Flags().StringVarP(&typ, "type", "t", "references", "the link's type")
	return cmd
}
