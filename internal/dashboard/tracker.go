package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// trackerReader holds the dashboard's own connection to the tracker, found
// walking up from the project directory at each request (so `init` after
// the start is seen), and rechecked against the files each time (so the
// CLI's changes from other processes are seen).
type trackerReader struct {
	dir, actor string
	mu         sync.Mutex
	repo       *store.Repo
}

func newTrackerReader(dir, actor string) *trackerReader {
	return &trackerReader{dir: dir, actor: actor}
}

// find returns the .sudocode directory, or why there is none.
func (t *trackerReader) find() (string, error) { return store.FindFrom(t.dir) }

func (t *trackerReader) check() error {
	_, err := t.find()
	return err
}

// with runs fn on the open tracker, serialised with every other reader.
func (t *trackerReader) with(ctx context.Context, fn func(*store.Repo) error) error {
	dir, err := t.find()
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.repo != nil && t.repo.Dir != dir {
		t.repo.Close()
		t.repo = nil
	}
	if t.repo == nil {
		r, err := store.Open(ctx, dir, t.actor)
		if err != nil {
			return err
		}
		t.repo = r
	}
	t.repo.Recheck()
	return fn(t.repo)
}

func (t *trackerReader) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.repo != nil {
		t.repo.Close()
		t.repo = nil
	}
}

// columnLimit caps the issues a board column shows (highest priority, then
// oldest, first), and blockersLimit the blocked issues whose blockers are
// listed (the page shows the others as blocked, and their issue page says
// by what): the board stays quick on a tracker of thousands of issues.
const (
	columnLimit   = 300
	blockersLimit = 300
)

// Board is /api/issues: the issues by status, with ready and blocked ones
// marked.
type Board struct {
	// Statuses are the columns, in the tracker's order.
	Statuses []string `json:"statuses"`
	// Counts are the issues in each status; a column shows at most 300.
	Counts    map[string]int `json:"counts"`
	Issues    []BoardItem    `json:"issues"`
	Total     int            `json:"total"`
	Truncated bool           `json:"truncated"`
	Hint      *string        `json:"hint"`
	Ready     int            `json:"ready"`
	Blocked   int            `json:"blocked"`
}

// BoardItem is an issue on the board.
type BoardItem struct {
	tracker.Compact
	Ready   bool `json:"ready"`
	Blocked bool `json:"blocked"`
	// BlockedBy lists what blocks the issue (empty for an issue whose
	// status is blocked with no unfinished blocker, and beyond the first
	// 300 blocked issues).
	BlockedBy []tracker.Blocker `json:"blocked_by"`
}

func (d *Dashboard) issues(w http.ResponseWriter, r *http.Request) {
	var b Board
	err := d.tracker.with(r.Context(), func(repo *store.Repo) error {
		// The ready and blocked sets are two queries; what blocks each
		// issue is worked out for the most important blocked ones only.
		status, err := repo.Status(r.Context(), true)
		if err != nil {
			return err
		}
		blocked, err := repo.Blocked(r.Context(), store.BlockedOptions{Issues: true, Limit: blockersLimit})
		if err != nil {
			return err
		}
		isReady, isBlocked := map[string]bool{}, map[string]bool{}
		for _, id := range status.Issues.ReadyIDs {
			isReady[id] = true
		}
		for _, id := range status.Issues.BlockedIDs {
			isBlocked[id] = true
		}
		blockers := map[string][]tracker.Blocker{}
		for _, it := range *blocked.Issues {
			blockers[it.ID] = it.BlockedBy
		}
		b = Board{Counts: map[string]int{}, Issues: []BoardItem{}, Ready: status.Issues.Ready, Blocked: status.Issues.Blocked}
		var cut []string
		for _, st := range tracker.IssueStatuses {
			list, err := repo.ListIssues(r.Context(), store.IssueFilter{Status: string(st), Limit: columnLimit})
			if err != nil {
				return err
			}
			b.Statuses = append(b.Statuses, string(st))
			b.Counts[string(st)] = list.Total
			b.Total += list.Total
			if list.Truncated {
				cut = append(cut, fmt.Sprintf("%d of %d %s", len(list.Issues), list.Total, st))
			}
			for _, c := range list.Issues {
				bs := blockers[c.ID]
				if bs == nil {
					bs = []tracker.Blocker{}
				}
				b.Issues = append(b.Issues, BoardItem{Compact: c, Ready: isReady[c.ID], Blocked: isBlocked[c.ID], BlockedBy: bs})
			}
		}
		if len(cut) > 0 {
			b.Truncated = true
			h := "showing " + strings.Join(cut, ", ") + " (highest priority first); use `sudocode issue list --status S` or the list_issues tool for the rest"
			b.Hint = &h
		}
		return nil
	})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, b)
}

func (d *Dashboard) issue(w http.ResponseWriter, r *http.Request) {
	var out tracker.IssueDetail
	err := d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		out, err = repo.ShowIssue(r.Context(), r.PathValue("id"))
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (d *Dashboard) specs(w http.ResponseWriter, r *http.Request) {
	var out tracker.SpecList
	err := d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		out, err = repo.ListSpecs(r.Context(), store.SpecFilter{Limit: specLimit})
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// specLimit caps the spec list.
const specLimit = 2000

// SpecView is /api/specs/{id}: the spec, its markdown, and its feedback
// with each anchor's place now (null for a stale anchor).
type SpecView struct {
	tracker.SpecDetail
	Feedback []tracker.FeedbackDetail `json:"feedback"`
	Stale    int                      `json:"stale"`
}

func (d *Dashboard) spec(w http.ResponseWriter, r *http.Request) {
	var out SpecView
	err := d.tracker.with(r.Context(), func(repo *store.Repo) error {
		sd, err := repo.ShowSpec(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		out = SpecView{SpecDetail: sd, Feedback: make([]tracker.FeedbackDetail, 0, len(sd.Feedback))}
		for _, f := range sd.Feedback {
			fd, err := repo.ShowFeedback(r.Context(), f.ID)
			if err != nil {
				return err
			}
			if fd.Anchor.AnchorStatus == tracker.AnchorStale {
				out.Stale++
			}
			out.Feedback = append(out.Feedback, fd)
		}
		return nil
	})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
