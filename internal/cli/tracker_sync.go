package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/plural"
	"github.com/sudocode/sudocode/internal/tracker/merge"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// transferOptions are the arguments of export and import.
type transferOptions struct {
	trackerCmd
	dir string
}

// needDir refuses a transfer without --dir.
func (o *transferOptions) needDir() error {
	if o.dir == "" {
		return usageError{fmt.Errorf("--dir is required")}
	}
	return nil
}

// named is a transfer's result with --dir as it was given (the transfer
// had it taken from the working directory).
func (o *transferOptions) named(res store.Transfer, err error) (store.Transfer, error) {
	res.Dir = o.dir
	return res, err
}

func newExportCmd(tc trackerCmd) *cobra.Command {
	o := &transferOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "export --dir DIR",
		Short: "Write the tracker's record files and spec bodies into DIR",
		Long: `Write the tracker's record files (records/<kind>/<shard>.jsonl) and spec bodies into
DIR, which can be a backup, another clone's .sudocode, or the input of an import elsewhere.
The record files there are replaced: shards this tracker does not have are emptied, and
first-layout files (issues.jsonl, specs.jsonl, feedback.jsonl) are removed.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runExport(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.dir, "dir", "", "directory to write into (created if needed)")
	return cmd
}

func runExport(ctx context.Context, o *transferOptions) error {
	if err := o.needDir(); err != nil {
		return err
	}
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (store.Transfer, error) { return o.named(r.Export(ctx, o.stdio.path(o.dir))) },
		func(w io.Writer, res store.Transfer) {
			fmt.Fprintf(w, "Exported %s, %s, %d feedback to %s\n", plural.Count(res.Issues, "issue", "issues"), plural.Count(res.Specs, "spec", "specs"), res.Feedback, res.Dir)
		})
}

func newImportCmd(tc trackerCmd) *cobra.Command {
	o := &transferOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "import --dir DIR",
		Short: "Merge an export (or another clone's .sudocode) into this tracker",
		Long: `Merge the record files (records/<kind>/<shard>.jsonl, or issues.jsonl, specs.jsonl and
feedback.jsonl of the first layout) and spec bodies in DIR into this tracker. Records match on
their uuid (feedback on its id); of two edits of one field the later wins; tags and
links are united; nothing is deleted. An incoming id that collides with a different
record here is renamed and reported. Every file is checked first: a malformed line
stops the import with its file and line, and nothing changes.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runImport(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.dir, "dir", "", "directory holding the record files and spec bodies (an export, or a .sudocode)")
	return cmd
}

func runImport(ctx context.Context, o *transferOptions) error {
	if err := o.needDir(); err != nil {
		return err
	}
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) (store.Transfer, error) { return o.named(r.Import(ctx, o.stdio.path(o.dir))) },
		func(w io.Writer, res store.Transfer) {
			fmt.Fprintf(w, "Imported from %s: now %s, %s, %d feedback\n", res.Dir, plural.Count(res.Issues, "issue", "issues"), plural.Count(res.Specs, "spec", "specs"), res.Feedback)
			for _, rn := range res.Renamed {
				fmt.Fprintf(w, "renamed %s to %s (it collided with a different record)\n", rn.Old, rn.New)
			}
		})
}

// mergeDriverOptions are git's arguments to the merge driver: the three
// versions, and the path the merged file has in the repository.
type mergeDriverOptions struct {
	trackerCmd
	base, ours, theirs, path string
}

// newMergeDriverCmd is git's merge driver for the JSONL files, registered
// by init: merge.sudocode.driver = sudocode merge-driver %O %A %B %P.
func newMergeDriverCmd(tc trackerCmd) *cobra.Command {
	o := &mergeDriverOptions{trackerCmd: tc}
	return &cobra.Command{
		Use:   "merge-driver BASE OURS THEIRS [PATH]",
		Short: "git merge driver for the tracker's shard files (init registers it)",
		Long: `Merge three versions of one of the tracker's JSONL files for git: a shard file
.sudocode/records/<issues|specs|feedback|activity>/<00-ff>.jsonl (or issues.jsonl,
specs.jsonl, feedback.jsonl of the first layout), whose kind PATH (git's %P) gives. Git
runs it only for a shard both branches changed. Activity (comments and history) is
append-only: both sides' records are kept. Other records match on their uuid, edits of different
fields both survive, the later edit of one field wins, lists are united, a deletion wins
only over an unchanged record; an incoming record whose id collides is renamed and
reported, and stays in this file until the next tracker command moves it to its own
shard. The result is written to OURS. On malformed input OURS is left as it is and the
exit status is 1, so git reports a conflict. Registered by "sudocode init" as:
  git config merge.sudocode.driver "sudocode merge-driver %O %A %B %P"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 3 || len(args) > 4 {
				return usageError{fmt.Errorf("want BASE OURS THEIRS [PATH]")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.base, o.ours, o.theirs, o.path = args[0], args[1], args[2], args[1]
			if len(args) == 4 {
				o.path = args[3]
			}
			return runMergeDriver(o)
		},
	}
}

func runMergeDriver(o *mergeDriverOptions) error {
	if _, err := merge.KindOf(o.path); err != nil {
		return usageError{err}
	}
	renames, err := merge.Driver(o.stdio.path(o.base), o.stdio.path(o.ours), o.stdio.path(o.theirs), o.path)
	if err != nil {
		return err
	}
	for _, rn := range renames {
		fmt.Fprintf(o.stdio.Err, "sudocode: %s: renamed %s to %s (the id collided); update references to it in other files\n", o.path, rn.Old, rn.New)
	}
	return nil
}
