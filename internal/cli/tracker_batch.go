package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// batchUpdate is one item of issue update-batch's input.
type batchUpdate struct {
	IssueID     string  `json:"issue_id"`
	Status      *string `json:"status"`
	Priority    *int    `json:"priority"`
	Assignee    *string `json:"assignee"`
	Type        *string `json:"type"`
	Title       *string `json:"title"`
	Description *string `json:"description"`
}

// batchOptions are the arguments of the batch commands: where the JSON
// array comes from.
type batchOptions struct {
	trackerCmd
	file string
}

// newBatchCmd builds a batch command; run does its work.
func newBatchCmd(tc trackerCmd, use, short, example string, run func(context.Context, *batchOptions) error) *cobra.Command {
	o := &batchOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:     use,
		Short:   short,
		Example: example,
		Args:    exactArgs(0),
		RunE:    func(cmd *cobra.Command, _ []string) error { return run(cmd.Context(), o) },
	}
	cmd.Flags().StringVarP(&o.file, "file", "f", "-", "read the array from `FILE` ('-': standard input)")
	return cmd
}

func newIssueCreateBatchCmd(tc trackerCmd) *cobra.Command {
	return newBatchCmd(tc, "create-batch", "Create several issues from a JSON array (all or none)",
		`  echo '[{"title":"Parse input"},{"title":"Print output","priority":1}]' | sudocode issue create-batch --json`,
		runIssueCreateBatch)
}

func runIssueCreateBatch(ctx context.Context, o *batchOptions) error {
	// An item has the fields of issue create (and of the create_issues MCP
	// tool), which are IssueInput's.
	return runBatch(ctx, o, func(in store.IssueInput) store.IssueInput { return in },
		(*store.Repo).CreateIssues, "Created issue %[1]s: %[3]s\n")
}

func newIssueUpdateBatchCmd(tc trackerCmd) *cobra.Command {
	return newBatchCmd(tc, "update-batch", "Apply several issue updates from a JSON array (all or none)",
		`  echo '[{"issue_id":"sudocode-a1b2","status":"in_progress"}]' | sudocode issue update-batch --json`,
		runIssueUpdateBatch)
}

func runIssueUpdateBatch(ctx context.Context, o *batchOptions) error {
	return runBatch(ctx, o, func(b batchUpdate) store.IssueUpdate {
		return store.IssueUpdate{ID: b.IssueID, Patch: store.IssuePatch{Title: b.Title, Description: b.Description,
			Status: b.Status, Type: b.Type, Assignee: b.Assignee, Priority: b.Priority}}
	}, (*store.Repo).UpdateIssues, "Updated issue %[1]s [%[2]s]: %[3]s\n")
}

// runBatch reads the array of items, turns each into the store's input,
// applies them all in one change and prints a line per issue, formatted
// from its id, status and title.
func runBatch[Item, In any](ctx context.Context, o *batchOptions, input func(Item) In,
	apply func(*store.Repo, context.Context, []In) ([]tracker.Issue, error), line string) error {
	var items []Item
	if err := readBatch(o.file, o.stdio, &items); err != nil {
		return err
	}
	ins := make([]In, len(items))
	for i, it := range items {
		ins[i] = input(it)
	}
	return runOn(ctx, o.trackerCmd, func(r *store.Repo) ([]tracker.Issue, error) { return apply(r, ctx, ins) },
		func(w io.Writer, issues []tracker.Issue) {
			for _, is := range issues {
				fmt.Fprintf(w, line, is.ID, is.Status, is.Title)
			}
		})
}

// readBatch decodes a JSON array of items from a file or standard input.
func readBatch[T any](path string, stdio IO, v *[]T) error {
	body, err := readInput(path, stdio)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		return fault.New(fault.Invalid, "the input is not a JSON array of items: %v", err)
	}
	return nil
}
