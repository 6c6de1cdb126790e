package cli

import (
	"context"
	"fmt"
	"io"

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

type specCreateOptions struct {
	trackerCmd
	in                 store.SpecInput
	parent, designFile string
}

func newSpecCreateCmd(tc trackerCmd) *cobra.Command {
	o := &specCreateOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:     "create TITLE",
		Short:   "Create a spec and its markdown file",
		Example: `  sudocode spec create "Login flow" --type feature --design "# Login\n\n..." --tags auth`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.in.Title = args[0]
			o.in.Priority = intFlag(cmd, "priority")
			o.in.Description = stringFlag(cmd, "description")
			return runSpecCreate(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.in.Type, "type", "t", "", "architecture, api, database, feature or research (default feature)")
	f.IntP("priority", "p", tracker.DefaultPriority, "0 (highest) to 4")
	f.StringP("description", "d", "", "short description")
	f.StringVar(&o.in.Design, "design", "", "the spec's markdown body")
	f.StringVar(&o.designFile, "design-file", "", "read the markdown body from `FILE` ('-' for standard input)")
	f.StringVar(&o.in.FilePath, "file-path", "", "body file, relative to .sudocode (default specs/{id}.md): a new .md file inside the project, outside .git")
	f.StringVar(&o.parent, "parent", "", "parent spec `ID`")
	f.StringSliceVar(&o.in.Tags, "tags", nil, "comma-separated tags")
	return cmd
}

func runSpecCreate(ctx context.Context, o *specCreateOptions) error {
	in := o.in
	in.Parent = nonEmpty(o.parent)
	if o.designFile != "" {
		body, err := readInput(o.designFile, o.stdio)
		if err != nil {
			return err
		}
		in.Design = body
	}
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.Spec, error) { return r.CreateSpec(ctx, in) },
		func(w io.Writer, spec tracker.Spec) {
			fmt.Fprintf(w, "Created spec %s: %s (.sudocode/%s)\n", spec.ID, spec.Title, spec.FilePath)
		})
}

// readInput reads a file (taken from the working directory), or standard
// input for "-".
func readInput(path string, stdio IO) (string, error) {
	if path == "-" {
		b, err := io.ReadAll(stdio.In)
		return string(b), err
	}
	b, err := stdio.readFile(path)
	if err != nil {
		return "", usageError{err}
	}
	return string(b), nil
}

type specListOptions struct {
	trackerCmd
	filter store.SpecFilter
}

func newSpecListCmd(tc trackerCmd) *cobra.Command {
	o := &specListOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List specs (compact), highest priority then oldest first",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.filter.Priority = intFlag(cmd, "priority")
			return runSpecList(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.filter.Status, "status", "s", "", "draft, review, approved or deprecated")
	fs.StringVarP(&o.filter.Type, "type", "t", "", "architecture, api, database, feature or research")
	fs.IntP("priority", "p", 0, "0 (highest) to 4")
	limitFlag(fs, &o.filter.Limit, store.DefaultListLimit, "most items to return")
	fs.StringVar(&o.filter.Cursor, "cursor", "", cursorHelp)
	return cmd
}

func runSpecList(ctx context.Context, o *specListOptions) error {
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.SpecList, error) { return r.ListSpecs(ctx, o.filter) },
		func(w io.Writer, list tracker.SpecList) {
			compactTable(w, list.Specs)
			footer(w, list.Total, len(list.Specs), list.Hint, list.NextCursor)
		})
}

func newSpecShowCmd(tc trackerCmd) *cobra.Command {
	return withID(tc, &cobra.Command{
		Use:   "show ID",
		Short: "Show a spec with its markdown, relationships and the feedback it received",
	}, runSpecShow)
}

func runSpecShow(ctx context.Context, o *idOptions) error {
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.SpecDetail, error) { return r.ShowSpec(ctx, o.id) }, specText)
}

func specText(w io.Writer, d tracker.SpecDetail) {
	fmt.Fprintf(w, "%s  %s\n", d.ID, d.Title)
	fmt.Fprintf(w, "status %s · type %s · priority %d · file .sudocode/%s · tags %s\n", d.Status, d.Type, d.Priority, d.FilePath, joinTags(d.Tags))
	if len(d.Relationships.Outgoing)+len(d.Relationships.Incoming) > 0 {
		fmt.Fprintln(w, "links:")
		relLines(w, d.Relationships, "this spec")
	}
	for _, f := range d.Feedback {
		fmt.Fprintf(w, "feedback %s from %s at line %d [%s, %s]: %s\n", f.ID, f.IssueID, f.Anchor.LineNumber, f.Status, f.Anchor.AnchorStatus, tracker.Shorten(f.Content))
	}
	fmt.Fprintf(w, "\n%s\n", d.Content)
}

type specUpdateOptions struct {
	trackerCmd
	id          string
	patch       store.SpecPatch
	tags        []string
	contentFile string
}

func newSpecUpdateCmd(tc trackerCmd) *cobra.Command {
	o := &specUpdateOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "update ID",
		Short: "Change the given fields of a spec; --content replaces its markdown and relocates its feedback",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.id = args[0]
			o.patch = store.SpecPatch{
				Title: stringFlag(cmd, "title"), Status: stringFlag(cmd, "status"), Type: stringFlag(cmd, "type"),
				Description: stringFlag(cmd, "description"), Content: stringFlag(cmd, "content"), Priority: intFlag(cmd, "priority"),
			}
			if cmd.Flags().Changed("tags") {
				o.patch.Tags = &o.tags
			}
			return runSpecUpdate(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.String("title", "", "new title")
	f.StringP("status", "s", "", "draft, review, approved or deprecated")
	f.StringP("type", "t", "", "architecture, api, database, feature or research")
	f.IntP("priority", "p", 0, "0 (highest) to 4")
	f.StringP("description", "d", "", "new short description")
	f.String("content", "", "new markdown body")
	f.StringVar(&o.contentFile, "content-file", "", "read the new markdown body from `FILE` ('-' for standard input)")
	f.StringSliceVar(&o.tags, "tags", nil, "replace the tags (comma-separated)")
	return cmd
}

func runSpecUpdate(ctx context.Context, o *specUpdateOptions) error {
	p := o.patch
	if o.contentFile != "" {
		body, err := readInput(o.contentFile, o.stdio)
		if err != nil {
			return err
		}
		p.Content = &body
	}
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (tracker.Spec, error) { return r.UpdateSpec(ctx, o.id, p) },
		func(w io.Writer, spec tracker.Spec) {
			fmt.Fprintf(w, "Updated spec %s [%s]: %s\n", spec.ID, spec.Status, spec.Title)
		})
}
