package mcptracker

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

var (
	specStatuses = names(tracker.SpecStatuses)
	specTypes    = names(tracker.SpecTypes)
)

// budgetHint is the note on a list cut to fit the response budget; skipped
// items came before the page.
func budgetHint(kept, total, skipped int, filters string) *string {
	h := fmt.Sprintf("showing %d of %d; %d left out to fit the response: narrow with %s, or a lower limit; next_cursor continues after the last item shown",
		kept, total, max(total-skipped-kept, 0), filters)
	return &h
}

// listPage is the part of a list result that fitList adjusts.
type listPage struct {
	total     int
	truncated *bool
	hint      **string
	next      **string
	page      tracker.Page
}

// fitList cuts a list result v to the budget: *items to the longest
// prefix that fits together with the note of the cut (truncated, a hint
// and the cursor after the last item kept), which is measured with it.
func fitList[T any](s *server, v any, items *[]T, p listPage, filters string) {
	all, wasTruncated, wasHint, wasNext := *items, *p.truncated, *p.hint, *p.next
	s.fit(v, len(all), func(n int) {
		*items, *p.truncated, *p.hint, *p.next = all[:n], wasTruncated, wasHint, wasNext
		if n < len(all) {
			*p.truncated, *p.hint = true, budgetHint(n, p.total, p.page.Skipped, filters)
			if n > 0 && n <= p.page.Items {
				next := p.page.After(n)
				*p.next = &next
			}
		}
	})
}

// smallestCompact is the length of the JSON of the smallest compact item.
var smallestCompact = func() int { b, _ := json.Marshal(tracker.Compact{}); return len(b) }()

// readLimit is the limit to read a list of compact items with: no more
// than could fit the budget were each the smallest there is. fitList cuts
// the page below that in any case, and what it returns depends only on
// the items it keeps, so a limit of 100,000 no longer reads every issue
// to keep a few hundred.
func (s *server) readLimit(limit int) int {
	return min(limit, s.opts.Budget/smallestCompact+2)
}

type listSpecsIn struct {
	Status   *string `json:"status,omitempty" jsonschema:"Only this status"`
	Type     *string `json:"type,omitempty" jsonschema:"Only this type"`
	Priority *int    `json:"priority,omitempty" jsonschema:"Only this priority, 0 (highest) to 4"`
	Limit    *int    `json:"limit,omitempty" jsonschema:"Max results"`
	Cursor   *string `json:"cursor,omitempty" jsonschema:"next_cursor of a previous result of the same query: continues the list after it"`
}

func (s *server) listSpecs() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "list_specs",
		Title: "List specs",
		Description: "List specs with optional filters, highest priority then oldest first, as compact items (no markdown) with the total; " +
			"read one with show_spec. When truncated, pass next_cursor as cursor for the next page.",
		InputSchema: mcpx.Schema[listSpecsIn](map[string]any{"limit": store.DefaultListLimit},
			map[string][]string{"status": specStatuses, "type": specTypes}),
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in listSpecsIn) (out tracker.SpecList, err error) {
		f := store.SpecFilter{Status: deref(in.Status), Type: deref(in.Type), Priority: in.Priority, Limit: s.readLimit(deref(in.Limit)), Cursor: deref(in.Cursor)}
		return call(ctx, s, func(r *store.Repo) (tracker.SpecList, error) {
			list, err := r.ListSpecs(ctx, f)
			if err != nil {
				return out, err
			}
			fitList(s, &list, &list.Specs, listPage{list.Total, &list.Truncated, &list.Hint, &list.NextCursor, list.Page}, "status, type or priority")
			return list, nil
		})
	})
}

type specIDIn struct {
	SpecID string `json:"spec_id" jsonschema:"Spec ID (e.g. sudocode-spec-a1b2)"`
}

func (s *server) showSpec() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:  "show_spec",
		Title: "Show a spec",
		Description: "Show a spec in full: fields, its markdown content, relationships both ways, and the feedback it received " +
			"(with each anchor's line and status). Line numbers for add_feedback count from 1 in content.",
		Annotations: readOnly,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in specIDIn) (out tracker.SpecDetail, err error) {
		return call(ctx, s, func(r *store.Repo) (tracker.SpecDetail, error) { return r.ShowSpec(ctx, in.SpecID) })
	})
}

type createSpecIn struct {
	Title       string   `json:"title" jsonschema:"Spec title"`
	Type        *string  `json:"type,omitempty" jsonschema:"Spec type"`
	Priority    *int     `json:"priority,omitempty" jsonschema:"Priority 0 (highest) to 4"`
	Description *string  `json:"description,omitempty" jsonschema:"Short description"`
	Design      *string  `json:"design,omitempty" jsonschema:"Design notes: the spec's markdown content"`
	FilePath    *string  `json:"file_path,omitempty" jsonschema:"Custom file path for the markdown, relative to .sudocode (default: specs/{id}.md): a new .md file inside the project, outside .git"`
	Parent      *string  `json:"parent,omitempty" jsonschema:"Parent spec ID"`
	Tags        []string `json:"tags,omitempty" jsonschema:"Tags"`
}

func (s *server) createSpec() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "create_spec",
		Title:       "Create a spec",
		Description: "Create a new spec (status draft) with its markdown file and return it.",
		InputSchema: mcpx.Schema[createSpecIn](map[string]any{"type": string(tracker.DefaultSpecType), "priority": tracker.DefaultPriority},
			map[string][]string{"type": specTypes}),
		Annotations: creates,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in createSpecIn) (out tracker.Spec, err error) {
		si := store.SpecInput{Title: in.Title, Type: deref(in.Type), Priority: in.Priority, Description: in.Description,
			Design: deref(in.Design), FilePath: deref(in.FilePath), Parent: in.Parent, Tags: in.Tags}
		return call(ctx, s, func(r *store.Repo) (tracker.Spec, error) { return r.CreateSpec(ctx, si) })
	})
}

type updateSpecIn struct {
	SpecID      string   `json:"spec_id" jsonschema:"Spec ID"`
	Title       *string  `json:"title,omitempty" jsonschema:"New title"`
	Status      *string  `json:"status,omitempty" jsonschema:"New status; approved or deprecated counts as done and unblocks what waits on the spec"`
	Type        *string  `json:"type,omitempty" jsonschema:"New type"`
	Priority    *int     `json:"priority,omitempty" jsonschema:"New priority, 0 (highest) to 4"`
	Description *string  `json:"description,omitempty" jsonschema:"New short description"`
	Content     *string  `json:"content,omitempty" jsonschema:"New markdown content; the feedback anchored on the spec is relocated"`
	Tags        []string `json:"tags,omitempty" jsonschema:"Replace the tags"`
}

func (s *server) updateSpec() mcpx.Tool {
	return mcpx.NewTool(mcpx.Faults, &mcp.Tool{
		Name:        "update_spec",
		Title:       "Update a spec",
		Description: "Change the given fields of a spec, including its markdown content, and return it. Feedback anchors follow the text they point at; lost ones become stale.",
		InputSchema: mcpx.Schema[updateSpecIn](nil, map[string][]string{"status": specStatuses, "type": specTypes}),
		Annotations: changes,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in updateSpecIn) (out tracker.Spec, err error) {
		p := store.SpecPatch{Title: in.Title, Status: in.Status, Type: in.Type, Priority: in.Priority, Description: in.Description, Content: in.Content}
		if in.Tags != nil {
			p.Tags = &in.Tags
		}
		return call(ctx, s, func(r *store.Repo) (tracker.Spec, error) { return r.UpdateSpec(ctx, in.SpecID, p) })
	})
}
