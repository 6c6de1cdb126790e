package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// trackerReader is the dashboard's way to the tracker: the project's,
// shared with the process's other surfaces, or one of its own found
// walking up from the project directory (app.Tracker: found again at each
// request, so that an `init` after the start is seen, and compared with
// the files, so that the CLI's changes from other processes are seen).
// Changes are recorded as the dashboard's actor.
type trackerReader struct {
	t     *app.Tracker
	own   bool // made here, closed by close
	actor string
}

func newTrackerReader(shared *app.Tracker, dir, actor string) trackerReader {
	if shared != nil {
		return trackerReader{t: shared, actor: actor}
	}
	return trackerReader{t: app.NewTracker(dir, actor), own: true, actor: actor}
}

// check says why there is no tracker, if there is none.
func (t trackerReader) check() error {
	_, err := t.t.Find()
	return err
}

// with runs fn on the tracker, serialised with every other call.
func (t trackerReader) with(ctx context.Context, fn func(*store.Repo) error) error {
	return t.t.Do(ctx, t.actor, fn)
}

func (t trackerReader) close() {
	if t.own {
		t.t.Close()
	}
}

// columnLimit is how many cards a column shows at once (highest priority,
// then oldest, first; the page asks for the next ones with column and
// offset), and blockersLimit how many blocked issues have their blockers
// named (the issue's page says by what for the others): the board stays
// quick on a tracker of thousands of issues.
const (
	columnLimit   = 100
	blockersLimit = 300
)

// Board is /api/issues: the issues by column, where the columns follow
// the rule of `ready` and `blocked` (an issue with an unfinished blocker is
// in the blocked column whatever its status), narrowed by the filters.
type Board struct {
	// Statuses are the columns, in the tracker's order.
	Statuses []string `json:"statuses"`
	// Counts are the issues in each column; a column shows at most 100 at
	// a time.
	Counts    map[string]int `json:"counts"`
	Issues    []BoardItem    `json:"issues"`
	Total     int            `json:"total"`
	Truncated bool           `json:"truncated"`
	Hint      *string        `json:"hint"`
	// Ready and Blocked are the tracker's counts, as `ready` and `blocked`
	// give them (all issues, whatever the filters).
	Ready   int `json:"ready"`
	Blocked int `json:"blocked"`
}

// BoardItem is an issue on the board.
type BoardItem struct {
	store.BoardCard
	Blocked bool `json:"blocked"`
	// BlockedBy lists what blocks the issue, each by id and title (empty
	// for an issue whose status is blocked with no unfinished blocker, and
	// beyond the first 300 blocked issues).
	BlockedBy []tracker.Blocker `json:"blocked_by"`
	// Usage is what the tasks started on the issue cost, every attempt
	// added up; absent for an issue without tasks.
	Usage *tracker.TaskUsage `json:"usage,omitempty"`
}

// boardFilter reads the board's filters from the query string.
func boardFilter(q url.Values) (store.BoardFilter, error) {
	f := store.BoardFilter{Type: q.Get("type"), Assignee: q.Get("assignee"), Tag: q.Get("tag"), Text: q.Get("text"),
		Column: q.Get("column"), Limit: columnLimit}
	if p := q.Get("priority"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return f, fault.New(fault.Invalid, "priority %q is not a number", p).WithHint("priorities are 0 (highest) to 4")
		}
		f.Priority = &n
	}
	if o := q.Get("offset"); o != "" {
		n, err := strconv.Atoi(o)
		if err != nil || n < 0 {
			return f, fault.New(fault.Invalid, "offset %q is not a count of cards", o)
		}
		f.Offset = n
	}
	return f, nil
}

func (d *Dashboard) issues(w http.ResponseWriter, r *http.Request) {
	filter, err := boardFilter(r.URL.Query())
	if err != nil {
		fail(w, err)
		return
	}
	var b Board
	err = d.tracker.with(r.Context(), func(repo *store.Repo) error {
		board, err := repo.Board(r.Context(), filter)
		if err != nil {
			return err
		}
		status, err := repo.Status(r.Context(), false)
		if err != nil {
			return err
		}
		// What blocks each issue is worked out for the most important
		// blocked ones only.
		blocked, err := repo.Blocked(r.Context(), store.BlockedOptions{Issues: true, Limit: blockersLimit})
		if err != nil {
			return err
		}
		blockers := map[string][]tracker.Blocker{}
		for _, it := range *blocked.Issues {
			blockers[it.ID] = it.BlockedBy
		}
		b = Board{Counts: board.Counts, Issues: []BoardItem{}, Ready: status.Issues.Ready, Blocked: status.Issues.Blocked}
		for _, c := range board.Cards {
			bs := blockers[c.ID]
			if bs == nil {
				bs = []tracker.Blocker{}
			}
			b.Issues = append(b.Issues, BoardItem{BoardCard: c, Blocked: c.Column == string(tracker.IssueBlocked), BlockedBy: bs})
		}
		var cut []string
		for _, st := range tracker.IssueStatuses {
			b.Statuses = append(b.Statuses, string(st))
			n := board.Counts[string(st)]
			b.Total += n
			if (filter.Column == "" || filter.Column == string(st)) && n > filter.Offset+columnLimit {
				cut = append(cut, fmt.Sprintf("%d of %d %s", columnLimit, n, st))
			}
		}
		if len(cut) > 0 {
			b.Truncated = true
			h := "showing " + strings.Join(cut, ", ") + " (highest priority first); narrow with the filters, or show more in a column"
			b.Hint = &h
		}
		return nil
	})
	if err != nil {
		fail(w, err)
		return
	}
	d.cardUsage(r.Context(), b.Issues)
	writeJSON(w, http.StatusOK, b)
}

// searchLimit caps the hits of /api/search.
const searchLimit = 100

// search is the tracker's search (as `sudocode search` and the search
// tool) over issues and specs.
func (d *Dashboard) search(w http.ResponseWriter, r *http.Request) {
	var out tracker.SearchResult
	err := d.tracker.with(r.Context(), func(repo *store.Repo) (err error) {
		out, err = repo.Search(r.Context(), store.SearchOptions{Query: r.URL.Query().Get("q"), Issues: true, Specs: true, Limit: searchLimit})
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
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
	v, err := d.issueView(r.Context(), out)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
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
	// Implementers are the issues linked to the spec by implements.
	Implementers []Implementer `json:"implementers"`
	// OpenFeedback counts the feedback not yet resolved or declined.
	OpenFeedback int `json:"open_feedback"`
}

// Implementer is an issue that implements a spec.
type Implementer struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"`
}

func (d *Dashboard) spec(w http.ResponseWriter, r *http.Request) {
	var out SpecView
	err := d.tracker.with(r.Context(), func(repo *store.Repo) error {
		sd, err := repo.ShowSpec(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		out = SpecView{SpecDetail: sd, Feedback: make([]tracker.FeedbackDetail, 0, len(sd.Feedback)), Implementers: []Implementer{}}
		for _, rel := range sd.Relationships.Incoming {
			if rel.Type != tracker.RelImplements || rel.FromType != tracker.KindIssue {
				continue
			}
			is, err := repo.ShowIssue(r.Context(), rel.From)
			if err != nil {
				return err
			}
			out.Implementers = append(out.Implementers, Implementer{ID: is.ID, Title: is.Title, Status: string(is.Status)})
		}
		for _, f := range sd.Feedback {
			fd, err := repo.ShowFeedback(r.Context(), f.ID)
			if err != nil {
				return err
			}
			if fd.Anchor.AnchorStatus == tracker.AnchorStale {
				out.Stale++
			}
			if fd.Status == tracker.FeedbackOpen || fd.Status == tracker.FeedbackAcknowledged {
				out.OpenFeedback++
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
