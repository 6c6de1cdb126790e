package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

func newSpecCmd(tc trackerCmd) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "spec",
		Short: "Create, list, show and update specs (markdown bodies under .sudocode/specs)",
		Args:  groupArgs,
		RunE:  groupHelp,
	}
	cmd.AddCommand(newSpecCreateCmd(tc), newSpecListCmd(tc), newSpecShowCmd(tc), newSpecUpdateCmd(tc))
	return cmd
}

func newSpecCreateCmd(tc trackerCmd) *cobra.Command {
	var in store.SpecInput
	var parent, designFile string
	cmd := &cobra.Command{
		Use:     "create TITLE",
		Short:   "Create a spec and its markdown file",
		Example: `  sudocode spec create "Login flow" --type feature --design "# Login\n\n..." --tags auth`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Title = args[0]
			in.Priority = intFlag(cmd, "priority")
			in.Description = stringFlag(cmd, "description")
			if parent != "" {
				in.Parent = &parent
			}
			if designFile != "" {
				body, err := readInput(designFile, tc.stdio.In)
				if err != nil {
					return err
				}
				in.Design = body
			}
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				spec, err := r.CreateSpec(cmd.Context(), in)
				if err != nil {
					return err
				}
				return tc.print(spec, func(w io.Writer) {
					fmt.Fprintf(w, "Created spec %s: %s (.sudocode/%s)\n", spec.ID, spec.Title, spec.FilePath)
				})
			})
		},
	}
	f := cmd.Flags()
	f.StringVarP(&in.Type, "type", "t", "", "architecture, api, database, feature or research (default feature)")
	f.IntP("priority", "p", tracker.DefaultPriority, "0 (highest) to 4")
	f.StringP("description", "d", "", "short description")
	f.StringVar(&in.Design, "design", "", "the spec's markdown body")
	f.StringVar(&designFile, "design-file", "", "read the markdown body from `FILE` ('-' for standard input)")
	f.StringVar(&in.FilePath, "file-path", "", "body file, relative to .sudocode (default specs/{id}.md): a new .md file inside the project, outside .git")
	f.StringVar(&parent, "parent", "", "parent spec `ID`")
	f.StringSliceVar(&in.Tags, "tags", nil, "comma-separated tags")
	return cmd
}

// readInput reads a file, or standard input for "-".
func readInput(path string, stdin io.Reader) (string, error) {
	if path == "-" {
		b, err := io.ReadAll(stdin)
		return string(b), err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", usageError{err}
	}
	return string(b), nil
}

func newSpecListCmd(tc trackerCmd) *cobra.Command {
	var f store.SpecFilter
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List specs (compact), highest priority then oldest first",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.Priority = intFlag(cmd, "priority")
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				list, err := r.ListSpecs(cmd.Context(), f)
				if err != nil {
					return err
				}
				return tc.print(list, func(w io.Writer) {
					compactTable(w, list.Specs)
					footer(w, list.Total, len(list.Specs), list.Hint, list.NextCursor)
				})
			})
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&f.Status, "status", "s", "", "draft, review, approved or deprecated")
	fs.StringVarP(&f.Type, "type", "t", "", "architecture, api, database, feature or research")
	fs.IntP("priority", "p", 0, "0 (highest) to 4")
	fs.IntVarP(&f.Limit, "limit", "n", store.DefaultListLimit, "most items to return")
	fs.StringVar(&f.Cursor, "cursor", "", cursorHelp)
	return cmd
}

func newSpecShowCmd(tc trackerCmd) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Show a spec with its markdown, relationships and the feedback it received",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				d, err := r.ShowSpec(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				return tc.print(d, func(w io.Writer) {
					fmt.Fprintf(w, "%s  %s\n", d.ID, d.Title)
					fmt.Fprintf(w, "status %s · type %s · priority %d · file .sudocode/%s · tags %s\n", d.Status, d.Type, d.Priority, d.FilePath, joinTags(d.Tags))
					if len(d.Relationships.Outgoing)+len(d.Relationships.Incoming) > 0 {
						fmt.Fprintln(w, "links:")
						relLines(w, d.Relationships)
					}
					for _, f := range d.Feedback {
						fmt.Fprintf(w, "feedback %s from %s at line %d [%s, %s]: %s\n", f.ID, f.IssueID, f.Anchor.LineNumber, f.Status, f.Anchor.AnchorStatus, tracker.Shorten(f.Content))
					}
					fmt.Fprintf(w, "\n%s\n", d.Content)
				})
			})
		},
	}
}

func newSpecUpdateCmd(tc trackerCmd) *cobra.Command {
	var tags []string
	var contentFile string
	cmd := &cobra.Command{
		Use:   "update ID",
		Short: "Change the given fields of a spec; --content replaces its markdown and relocates its feedback",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := store.SpecPatch{
				Title: stringFlag(cmd, "title"), Status: stringFlag(cmd, "status"), Type: stringFlag(cmd, "type"),
				Description: stringFlag(cmd, "description"), Content: stringFlag(cmd, "content"), Priority: intFlag(cmd, "priority"),
			}
			if cmd.Flags().Changed("tags") {
				p.Tags = &tags
			}
			if contentFile != "" {
				body, err := readInput(contentFile, tc.stdio.In)
				if err != nil {
					return err
				}
				p.Content = &body
			}
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				spec, err := r.UpdateSpec(cmd.Context(), args[0], p)
				if err != nil {
					return err
				}
				return tc.print(spec, func(w io.Writer) { fmt.Fprintf(w, "Updated spec %s [%s]: %s\n", spec.ID, spec.Status, spec.Title) })
			})
		},
	}
	f := cmd.Flags()
	f.String("title", "", "new title")
	f.StringP("status", "s", "", "draft, review, approved or deprecated")
	f.StringP("type", "t", "", "architecture, api, database, feature or research")
	f.IntP("priority", "p", 0, "0 (highest) to 4")
	f.StringP("description", "d", "", "new short description")
	f.String("content", "", "new markdown body")
	f.StringVar(&contentFile, "content-file", "", "read the new markdown body from `FILE` ('-' for standard input)")
	f.StringSliceVar(&tags, "tags", nil, "replace the tags (comma-separated)")
	return cmd
}
