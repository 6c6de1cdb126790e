package dashboard

import (
	"context"

	"github.com/sudocode/sudocode/internal/tracker"
)

// cardUsage gives each card whose issue has tasks what they cost, in one
// query for the whole page. The board is the tracker's: a task store that
// fails leaves the cards without figures rather than the board unshown.
func (d *Dashboard) cardUsage(ctx context.Context, cards []BoardItem) {
	if d.opts.Tasks == nil || len(cards) == 0 {
		return
	}
	ids := make([]string, len(cards))
	for i, c := range cards {
		ids[i] = c.ID
	}
	by, err := d.opts.Tasks.IssueUsage(ctx, ids)
	if err != nil {
		d.logger.Warn("the board's task usage is unavailable", "err", err)
		return
	}
	for i := range cards {
		if u, ok := by[cards[i].ID]; ok {
			cards[i].Usage = &u
		}
	}
}

// issueUsage is what the tasks of issue id cost; nil without tasks.
func (d *Dashboard) issueUsage(ctx context.Context, id string) (*tracker.TaskUsage, error) {
	if d.opts.Tasks == nil {
		return nil, nil
	}
	by, err := d.opts.Tasks.IssueUsage(ctx, []string{id})
	if u, ok := by[id]; ok && err == nil {
		return &u, nil
	}
	return nil, err
}
