package dashboard_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// BenchmarkBoard10000: the board of a tracker with 10,000 issues (a tenth
// of them blocked by a link) answers one page per column, however many
// issues there are; the page shows more of a column on demand. Reported:
// the answer's size and its cards. The issues' table answers a page of
// rows the same way (table=…).
func BenchmarkBoard10000(b *testing.B) { benchBoard(b, nil) }

// benchBoard runs BenchmarkBoard10000 on a dashboard with the options
// opts gives for the fixture and its issues' ids (none when nil).
func benchBoard(b *testing.B, opts func(f *fixture, ids []string) dashboard.Options) {
	f := newFixture(b)
	ctx := context.Background()
	ins := make([]store.IssueInput, 10000)
	for i := range ins {
		p := i % 5
		ins[i] = store.IssueInput{Title: fmt.Sprintf("Issue number %d", i), Priority: &p, Description: "Some words to search for."}
	}
	made, err := f.repo.CreateIssues(ctx, ins)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i+1 < len(made); i += 10 {
		if _, err := f.repo.Link(ctx, made[i].ID, made[i+1].ID, "blocks"); err != nil {
			b.Fatal(err)
		}
	}
	var o dashboard.Options
	if opts != nil {
		ids := make([]string, len(made))
		for i, is := range made {
			ids[i] = is.ID
		}
		o = opts(f, ids)
	}
	ts, _ := serveDashboard(b, f, o)
	for _, q := range []string{"", "?text=number+99", "?column=open&offset=5000"} {
		b.Run("query="+q, func(b *testing.B) {
			var size int
			var board dashboard.Board
			for b.Loop() {
				resp, err := ts.Client().Get(ts.URL + "/api/issues" + q)
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				size = len(body)
			}
			getJSON(b, ts.Client(), ts.URL+"/api/issues"+q, &board)
			if len(board.Issues) > 4*100 {
				b.Fatalf("%d cards in one answer", len(board.Issues))
			}
			b.ReportMetric(float64(size), "bytes/op")
			b.ReportMetric(float64(len(board.Issues)), "cards")
			if opts != nil {
				costed := 0
				for _, c := range board.Issues {
					if c.Usage != nil {
						costed++
					}
				}
				b.ReportMetric(float64(costed), "costed")
			}
		})
	}
	if opts != nil {
		return // the table has no costs to measure
	}
	// The table beside the board: one page of rows, sorted and grouped
	// by the server, however many issues there are.
	for _, q := range []string{"?sort=updated&dir=desc", "?sort=title&group=status", "?group=assignee&offset=9800"} {
		b.Run("table="+q, func(b *testing.B) {
			var tb dashboard.IssueTable
			for b.Loop() {
				getJSON(b, ts.Client(), ts.URL+"/api/issue-table"+q, &tb)
			}
			if tb.Total < 10000 || len(tb.Rows) == 0 || len(tb.Rows) > 200 {
				b.Fatalf("%d rows of %d in one answer", len(tb.Rows), tb.Total)
			}
			b.ReportMetric(float64(len(tb.Rows)), "rows")
		})
	}
}
