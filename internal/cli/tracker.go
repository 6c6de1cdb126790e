package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// globalOptions are the root's persistent flags.
type globalOptions struct {
	json bool
}

// trackerCmd carries what every tracker command needs. Each command has an
// options struct that embeds it and holds its arguments and flags, a
// constructor that binds them (newXxxCmd), and a run function (runXxx)
// that does the work from the options alone.
type trackerCmd struct {
	g     *globalOptions
	stdio IO
}

// withRepo finds and opens the tracker for one command.
func (tc trackerCmd) withRepo(ctx context.Context, fn func(*store.Repo) error) error {
	dir, err := tc.find()
	if err != nil {
		return err
	}
	r, err := store.Open(ctx, dir, tc.stdio.actor())
	if err != nil {
		return err
	}
	defer r.Close()
	r.Notify = func(msg string) { fmt.Fprintln(tc.stdio.Err, "sudocode: "+msg) }
	return fn(r)
}

// find returns the command's .sudocode directory (store.Find), from its
// working directory and environment.
func (tc trackerCmd) find() (string, error) { return store.Find(tc.stdio.Dir, tc.stdio.Getenv) }

// runOn is the body of most tracker commands: open the tracker, do one
// operation, print its result (JSON with --json, else text).
func runOn[T any](ctx context.Context, tc trackerCmd, op func(*store.Repo) (T, error), text func(io.Writer, T)) error {
	return tc.withRepo(ctx, func(r *store.Repo) error {
		v, err := op(r)
		if err != nil {
			return err
		}
		return tc.print(v, func(w io.Writer) { text(w, v) })
	})
}

// print writes v as JSON with --json, else what human writes.
func (tc trackerCmd) print(v any, human func(w io.Writer)) error {
	if tc.g.json {
		return writeJSON(tc.stdio.Out, v)
	}
	// The tabwriter writes each cell on its own: a list of 100,000 issues
	// was a million write calls to stdout without the buffer.
	bw := bufio.NewWriterSize(tc.stdio.Out, 64<<10)
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	human(tw)
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

func writeJSON(w io.Writer, v any) error {
	if l, ok := listOf(v); ok {
		return l.write(w)
	}
	if res, ok := v.(tracker.BlockedResult); ok {
		return writeBlocked(w, res)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// intFlag returns the flag's value when it was given.
func intFlag(cmd *cobra.Command, name string) *int {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	v, _ := cmd.Flags().GetInt(name)
	return &v
}

// stringFlag returns the flag's value when it was given.
func stringFlag(cmd *cobra.Command, name string) *string {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	v, _ := cmd.Flags().GetString(name)
	return &v
}

func orDash(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	return *s
}

// compactTable prints list items as a table.
func compactTable(w io.Writer, items []tracker.Compact) {
	if len(items) == 0 {
		fmt.Fprintln(w, "(none)")
		return
	}
	fmt.Fprintln(w, "ID\tP\tSTATUS\tTYPE\tTITLE")
	for _, c := range items {
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\n", c.ID, c.Priority, c.Status, c.Type, c.Title)
	}
}

func footer(w io.Writer, total, shown int, hint, next *string) {
	if hint != nil {
		fmt.Fprintf(w, "\n%s\n", *hint)
	} else if total > 0 {
		fmt.Fprintf(w, "\n%d total\n", total)
	}
	nextLine(w, next)
}

// nextLine prints the cursor of the next page, if there is one.
func nextLine(w io.Writer, next *string) {
	if next != nil {
		fmt.Fprintf(w, "next page: --cursor %s\n", *next)
	}
}

// cursorHelp describes every list command's --cursor.
const cursorHelp = "continue after the page whose next_cursor this is (same filters)"

// relLines lists an item's links in plain words (tracker.RelType.Reads),
// the item itself named self ("this issue"), each with its type.
func relLines(w io.Writer, d tracker.Relationships, self string) {
	for _, r := range d.Outgoing {
		fmt.Fprintf(w, "  %s\t[%s]\n", r.Type.Reads(self, r.To), r.Type)
	}
	for _, r := range d.Incoming {
		fmt.Fprintf(w, "  %s\t[%s]\n", r.Type.Reads(r.From, self), r.Type)
	}
}

func joinTags(tags []string) string {
	if len(tags) == 0 {
		return "-"
	}
	return strings.Join(tags, ", ")
}

// relHelp explains the relationship directions, which readers guess wrong:
// the type names read backwards for blocks and depends-on.
const relHelp = `Relationship types, as "sudocode link A B --type TYPE" reads:
  blocks           A waits for B: A is not ready until B is done
  depends-on       A waits for B, as with blocks
  parent-child     A is the parent of B; A's unfinished blockers hold B too
  implements       A implements B        (these four never block)
  references       A references B
  discovered-from  A was discovered from B
  related          A is related to B

Done means: an issue closed; a spec approved or deprecated.`
