package orchestrator

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker"
)

// claudeResult is Claude's last line, reporting cost and tokens.
// onIssue creates a task of issue id as Start does, without a tracker.
func (f *fixture) onIssue(t *testing.T, id string, in CreateInput) Task {
	t.Helper()
	in.IssueID = id
	task, err := f.o.create(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func claudeResult(cost string, in, out string) string {
	return `{"type":"result","subtype":"success","is_error":false,"result":"ok","total_cost_usd":` + cost +
		`,"usage":{"input_tokens":` + in + `,"output_tokens":` + out + `},"session_id":"s1"}`
}

// An issue's usage adds up every attempt: a failed one, a cancelled one
// (its run reported before it was stopped) and one whose CLI reports
// tokens but no cost, which leaves the cost a sum of the others, said so
// by priced. The project's usage counts tasks on no issue too.
func TestUsageAddsUpEveryAttemptOfAnIssue(t *testing.T) {
	f := newFixture(t, testkit.Repo(t), noPool)
	ctx := context.Background()
	failed := f.wait(t, f.onIssue(t, "iss-1", CreateInput{Agent: "CLAUDE_REPLAY", Description: "try 1",
		Config: replay("1", claudeResult("0.10", "100", "50"))}).ID)
	if failed.Status != StatusFailed {
		t.Fatalf("first attempt %s", failed.Status)
	}
	script := "printf '%s\\n' '" + claudeResult("0.20", "200", "80") + "'\nexec sleep 30\n"
	stopped := f.onIssue(t, "iss-1", CreateInput{Agent: "CLAUDE_REPLAY", Description: "try 2", Config: cfg(script)})
	testkit.WaitFor(t, 10*time.Second, "the second attempt's result", func() bool {
		return len(eventsOf(t, f, stopped.ID, agent.KindCompletion)) > 0
	})
	if _, err := f.o.End(ctx, stopped.ID, EndInput{}); err != nil {
		t.Fatal(err)
	}
	if got := f.wait(t, stopped.ID); got.Status != StatusCancelled {
		t.Fatalf("second attempt %s", got.Status)
	}
	codex := f.wait(t, f.onIssue(t, "iss-1", CreateInput{Agent: "CODEX_REPLAY", Description: "try 3", Config: replay("0",
		`{"type":"thread.started","thread_id":"t1"}`,
		`{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":100}}`)}).ID)
	f.wait(t, f.onIssue(t, "iss-2", CreateInput{Agent: "CLAUDE_REPLAY", Description: "other",
		Config: replay("0", claudeResult("0.05", "10", "5"))}).ID)
	f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "no issue", Config: shell("true")}).ID)

	want := tracker.TaskUsage{Tasks: 3, Priced: 2, CostUSD: new(0.30),
		Tokens: &tracker.TokenCounts{Input: 1300, Output: 230}}
	by, err := f.store.UsageByIssue(ctx, []string{"iss-1", "iss-3"})
	if err != nil {
		t.Fatal(err)
	}
	if len(by) != 1 || !sameUsage(by["iss-1"], want) {
		t.Errorf("usage by issue %+v, want iss-1 %+v", by, want)
	}
	rep, err := f.o.Report(ctx, codex.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Usage.Issue == nil || !sameUsage(*rep.Usage.Issue, want) || rep.Usage.Task.CostUSD != nil {
		t.Errorf("report's usage %+v issue %+v", rep.Usage, rep.Usage.Issue)
	}

	p, err := f.store.ProjectUsage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	total := tracker.TaskUsage{Tasks: 5, Priced: 3, CostUSD: new(0.35), Tokens: &tracker.TokenCounts{Input: 1310, Output: 235}}
	if p == nil || !sameUsage(p.Total, total) || len(p.TopIssues) != 2 || p.TopIssues[0].IssueID != "iss-1" || p.TopIssues[1].IssueID != "iss-2" {
		t.Errorf("project usage %+v", p)
	}
}

// sameUsage compares usages, their costs to a billionth of a dollar.
func sameUsage(a, b tracker.TaskUsage) bool {
	if (a.CostUSD == nil) != (b.CostUSD == nil) || a.CostUSD != nil && abs(*a.CostUSD-*b.CostUSD) > 1e-9 {
		return false
	}
	a.CostUSD, b.CostUSD = nil, nil
	return reflect.DeepEqual(a, b)
}

// A store without tasks has no usage, and a result end_task replaced
// with something other than a run's counts the task, not a figure.
func TestUsageOfNothingIsUnknown(t *testing.T) {
	f := newFixture(t, testkit.Repo(t), noPool)
	ctx := context.Background()
	if p, err := f.store.ProjectUsage(ctx); p != nil || err != nil {
		t.Fatalf("project usage of no task %+v %v", p, err)
	}
	task := f.wait(t, f.onIssue(t, "iss-1", CreateInput{Agent: "COMMAND", Description: "x", Config: shell("true")}).ID)
	if _, err := f.o.End(ctx, task.ID, EndInput{Result: []byte(`"replaced"`)}); err != nil {
		t.Fatal(err)
	}
	by, err := f.store.UsageByIssue(ctx, nil)
	if err != nil || !reflect.DeepEqual(by, map[string]tracker.TaskUsage{"iss-1": {Tasks: 1}}) {
		t.Errorf("usage %+v %v", by, err)
	}
}

// A result end_task gives keeps the task's usage: the issue's cost does
// not lose what an ended attempt spent; the rest of the result is as given.
func TestEndResultKeepsTheUsage(t *testing.T) {
	f := newFixture(t, testkit.Repo(t), noPool)
	ctx := context.Background()
	task := f.wait(t, f.onIssue(t, "iss-1", CreateInput{Agent: "CLAUDE_REPLAY", Description: "x",
		Config: replay("0", claudeResult("0.10", "100", "50"))}).ID)
	end, err := f.o.End(ctx, task.ID, EndInput{Result: []byte(` {"summary": "done"}`)})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"task_usage":{"cost_usd":0.1,"tokens":{"input":100,"output":50,"cache_read":0,"cache_write":0}},"summary": "done"}`
	if string(end.Task.Result) != want {
		t.Errorf("result %s, want %s", end.Task.Result, want)
	}
	by, err := f.store.UsageByIssue(ctx, nil)
	if err != nil || !sameUsage(by["iss-1"], tracker.TaskUsage{Tasks: 1, Priced: 1, CostUSD: new(0.10), Tokens: &tracker.TokenCounts{Input: 100, Output: 50}}) {
		t.Errorf("usage %+v %v", by, err)
	}
	for _, c := range []struct{ old, result, want string }{
		{`{"task_usage":{"cost_usd":1}}`, `{}`, `{"task_usage":{"cost_usd":1}}`},
		{`{"task_usage":{"cost_usd":1}}`, `[1]`, `[1]`},
		{`{"task_usage":{"cost_usd":1}}`, `{"task_usage":null}`, `{"task_usage":null}`},
		{`{"task_usage":{}}`, `{"a":1}`, `{"a":1}`},
		{`not json`, `{"a":1}`, `{"a":1}`},
	} {
		if got := string(keepUsage([]byte(c.old), []byte(c.result))); got != c.want {
			t.Errorf("keepUsage(%s, %s) = %s, want %s", c.old, c.result, got, c.want)
		}
	}
}

// BenchmarkUsageByIssue: the costs of a board's page of 200 cards, from a
// store of 4,000 tasks on 2,000 issues, in one query.
func BenchmarkUsageByIssue(b *testing.B) {
	s, err := OpenStore(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	now := time.Now().UTC()
	ids := make([]string, 0, 200)
	for i := range 4000 {
		issue := fmt.Sprintf("iss-%04d", i/2)
		res := fmt.Sprintf(`{"outcome":"failed","task_usage":{"cost_usd":0.%02d,"tokens":{"input":%d,"output":5,"cache_read":0,"cache_write":0}}}`, i%100, i)
		if err := s.Put(ctx, Task{ID: fmt.Sprintf("t%04d", i), Agent: "CLAUDECODE", Status: StatusFailed, Result: []byte(res),
			IssueID: issue, CreatedAt: now, UpdatedAt: now}); err != nil {
			b.Fatal(err)
		}
		if i%20 == 0 {
			ids = append(ids, issue)
		}
	}
	for b.Loop() {
		by, err := s.UsageByIssue(ctx, ids)
		if err != nil || len(by) != len(ids) {
			b.Fatalf("%d issues, %v", len(by), err)
		}
	}
}
