package dashboard_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/testkit"
)

// claudeCosting stands in for `claude`: each run reports $0.25 and
// 12,000 tokens in, 345 out; its first run then fails, the next succeed.
const claudeCosting = `#!/bin/sh
cat > /dev/null
n=$(ls "$CLAUDE_CONFIG_DIR" | wc -l)
touch "$CLAUDE_CONFIG_DIR/run$n"
echo '{"type":"system","subtype":"init","session_id":"s'$n'"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"Run '$n'.","total_cost_usd":0.25,"usage":{"input_tokens":12000,"output_tokens":345},"session_id":"s'$n'"}'
[ "$n" != 0 ]
`

// TestBrowserCostOnCardAndIssue: the card of an issue with tasks carries
// what they cost, every attempt (the failed one too) added up, and the
// issue's page says it in full; a card without tasks carries nothing.
func TestBrowserCostOnCardAndIssue(t *testing.T) {
	bin, conf := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(claudeCosting), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("CLAUDE_CONFIG_DIR", conf)
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	if srv.Tasks == nil {
		t.Fatalf("tasks unavailable: %s", srv.TasksUnavailable)
	}
	ctx := context.Background()
	for _, want := range []orchestrator.Status{orchestrator.StatusFailed, orchestrator.StatusWaiting} {
		task, err := srv.Tasks.Start(ctx, orchestrator.StartInput{IssueID: f.open, Agent: "CLAUDECODE", Description: "Try"})
		if err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, testkit.Scale(time.Minute), "the attempt to end "+string(want), func() bool {
			cur, err := srv.Tasks.Get(ctx, task.ID)
			return err == nil && cur.Status == want
		})
	}
	// A command agent reports no usage: its issue's card carries no badge
	// (a board of them would read "cost unknown" on every card), its page
	// says the cost is unknown.
	cmd, err := srv.Tasks.Start(ctx, orchestrator.StartInput{IssueID: f.progress, Agent: "COMMAND", Description: "Try",
		Config: []byte(`{"command":["true"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, testkit.Scale(time.Minute), "the command's task to end", func() bool {
		cur, err := srv.Tasks.Get(ctx, cmd.ID)
		return err == nil && cur.FinishedAt != nil
	})
	b.do(t, chromedp.Navigate(base+"/?token="+srv.OpenToken+"#/board"))
	cost := `document.querySelector('#card-` + f.open + ` .badge.cost')`
	b.waitFor(t, "the card's cost", `!!`+cost)
	if got := eval[string](t, b, cost+`.textContent`); got != "$0.50 \u00b7 25k tokens" {
		t.Errorf("the card's badge: %q", got)
	}
	if title := eval[string](t, b, cost+`.title`); !strings.Contains(title, "2 tasks, every attempt, 24,000 tokens in, 690 out, $0.5000") {
		t.Errorf("the badge's title: %q", title)
	}
	if n := eval[int](t, b, `document.querySelectorAll('.badge.cost').length`); n != 1 {
		t.Errorf("%d cost badges on the board, want the one card's", n)
	}
	b.screenshot(t, "cost-board")
	b.do(t, chromedp.Navigate(base+"/#/issue/"+f.open))
	b.waitFor(t, "the issue's cost", `!!document.getElementById('issue-usage')`)
	if got := eval[string](t, b, `document.getElementById('issue-usage').textContent`); !strings.Contains(got, "$0.50") || !strings.Contains(got, "2 tasks, every attempt") {
		t.Errorf("the issue's cost: %q", got)
	}
	b.screenshot(t, "cost-issue")
	b.do(t, chromedp.Navigate(base+"/#/issue/"+f.progress))
	b.waitFor(t, "the command's issue saying its cost is unknown", `!!document.getElementById('issue-usage') && document.getElementById('issue-usage').textContent.includes('cost unknown')`)
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
