package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

func newSearchCmd(tc trackerCmd) *cobra.Command {
	var o store.SearchOptions
	cmd := &cobra.Command{
		Use:   "search WORDS...",
		Short: "Find issues and specs whose title, description or spec content hold every word",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("give one or more words to search for")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, a := range args {
				o.Query += a + " "
			}
			if !o.Issues && !o.Specs {
				o.Issues, o.Specs = true, true
			}
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				res, err := r.Search(cmd.Context(), o)
				if err != nil {
					return err
				}
				return tc.print(res, func(w io.Writer) {
					if len(res.Results) == 0 {
						fmt.Fprintln(w, "(no match)")
					}
					for _, h := range res.Results {
						fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", h.ID, h.Kind, h.Title, h.Snippet)
					}
					footer(w, res.Total, len(res.Results), res.Hint, res.NextCursor)
				})
			})
		},
	}
	cmd.Flags().BoolVar(&o.Issues, "issues", false, "search issues (default: issues and specs)")
	cmd.Flags().BoolVar(&o.Specs, "specs", false, "search specs (default: issues and specs)")
	cmd.Flags().IntVarP(&o.Limit, "limit", "n", store.DefaultListLimit, "most results")
	cmd.Flags().StringVar(&o.Cursor, "cursor", "", cursorHelp)
	return cmd
}

// batchIssue is one item of issue create-batch's input: the fields of
// issue create (and of the create_issues MCP tool).
type batchIssue struct {
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Type        string   `json:"type"`
	Priority    *int     `json:"priority"`
	Assignee    *string  `json:"assignee"`
	Parent      *string  `json:"parent"`
	Tags        []string `json:"tags"`
	Estimate    *int     `json:"estimate"`
}

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

// readBatch decodes a JSON array of items from a file or standard input.
func readBatch[T any](path string, stdin io.Reader, v *[]T) error {
	body, err := readInput(path, stdin)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		return fault.New(fault.Invalid, "the input is not a JSON array of items: %v", err)
	}
	return nil
}

func newIssueCreateBatchCmd(tc trackerCmd) *cobra.Command {
	file := "-"
	cmd := &cobra.Command{
		Use:     "create-batch",
		Short:   "Create several issues from a JSON array (all or none)",
		Example: `  echo '[{"title":"Parse input"},{"title":"Print output","priority":1}]' | sudocode issue create-batch --json`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var items []batchIssue
			if err := readBatch(file, tc.stdio.In, &items); err != nil {
				return err
			}
			ins := make([]store.IssueInput, len(items))
			for i, b := range items {
				ins[i] = store.IssueInput{Title: b.Title, Description: b.Description, Type: b.Type, Priority: b.Priority,
					Assignee: b.Assignee, Parent: b.Parent, Tags: b.Tags, Estimate: b.Estimate}
			}
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				issues, err := r.CreateIssues(cmd.Context(), ins)
				if err != nil {
					return err
				}
				return tc.print(issues, func(w io.Writer) {
					for _, is := range issues {
						fmt.Fprintf(w, "Created issue %s: %s\n", is.ID, is.Title)
					}
				})
			})
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "-", "read the array from `FILE` ('-': standard input)")
	return cmd
}

func newIssueUpdateBatchCmd(tc trackerCmd) *cobra.Command {
	file := "-"
	cmd := &cobra.Command{
		Use:     "update-batch",
		Short:   "Apply several issue updates from a JSON array (all or none)",
		Example: `  echo '[{"issue_id":"sudocode-a1b2","status":"in_progress"}]' | sudocode issue update-batch --json`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var items []batchUpdate
			if err := readBatch(file, tc.stdio.In, &items); err != nil {
				return err
			}
			ups := make([]store.IssueUpdate, len(items))
			for i, b := range items {
				ups[i] = store.IssueUpdate{ID: b.IssueID, Patch: store.IssuePatch{Title: b.Title, Description: b.Description,
					Status: b.Status, Type: b.Type, Assignee: b.Assignee, Priority: b.Priority}}
			}
			return tc.withRepo(cmd.Context(), func(r *store.Repo) error {
				issues, err := r.UpdateIssues(cmd.Context(), ups)
				if err != nil {
					return err
				}
				return tc.print(issues, func(w io.Writer) {
					for _, is := range issues {
						fmt.Fprintf(w, "Updated issue %s [%s]: %s\n", is.ID, is.Status, is.Title)
					}
				})
			})
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "-", "read the array from `FILE` ('-': standard input)")
	return cmd
}
