package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/userenv"
)

// A task started from an issue gets a prompt assembled from the tracker and
// the ruleset library, kept with the task and shown by its report; the
// issue goes in progress with the agent as assignee.
func TestStartAssemblesThePrompt(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	desc := "The login flow"
	spec, err := w.tr.CreateSpec(ctx, store.SpecInput{Title: "Auth", Description: &desc, Design: "# Auth\n\n## Tokens\n\nTokens expire after one hour.\n"})
	if err != nil {
		t.Fatal(err)
	}
	parent, _ := w.tr.CreateIssue(ctx, store.IssueInput{Title: "Epic: accounts", Description: "Everything about accounts"})
	origin, _ := w.tr.CreateIssue(ctx, store.IssueInput{Title: "Audit sessions", Description: "Found while auditing"})
	blocker, _ := w.tr.CreateIssue(ctx, store.IssueInput{Title: "Add the users table"})
	issue, err := w.tr.CreateIssue(ctx, store.IssueInput{Title: "Refresh tokens", Description: "Tokens must be refreshable.", Parent: &parent.ID, Tags: []string{"go"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range [][3]string{{issue.ID, spec.ID, "implements"}, {issue.ID, origin.ID, "discovered-from"}, {issue.ID, blocker.ID, "blocks"}} {
		if _, err := w.tr.Link(ctx, l[0], l[1], l[2]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.tr.CloseIssues(ctx, []string{blocker.ID}, "Done in the schema migration"); err != nil {
		t.Fatal(err)
	}
	text := "one hour"
	if _, err := w.tr.AddFeedback(ctx, store.FeedbackInput{IssueID: origin.ID, SpecID: spec.ID, Content: "One hour from issue or last use?", Text: &text}); err != nil {
		t.Fatal(err)
	}
	mustCreateRule(t, w.rules, "go_style", []string{"go"}, "Run gofmt.")
	mustCreateRule(t, w.rules, "python_style", []string{"python"}, "Use black.")
	mustCreateRule(t, w.rules, "team_rules", nil, "Write tests first.")
	// The library's own scope: always-on, path-scoped, and for other agents only.
	mustCreateScoped(t, w.rules, "security", rulesets.Scope{Always: true}, "Never log tokens.")
	mustCreateScoped(t, w.rules, "sql_rules", rulesets.Scope{Globs: []string{"db/**/*.sql"}}, "Migrations are reversible.")
	mustCreateScoped(t, w.rules, "cursor_only", rulesets.Scope{Always: true, Targets: []string{"cursor"}}, "Cursor things.")
	mustCreateScoped(t, w.rules, "claude_only", rulesets.Scope{Always: true, Targets: []string{"claude"}}, "Claude things.")
	if _, err := w.tr.AddComment(ctx, issue.ID, "Keep the old tokens valid\nuntil they expire."); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w.repo, ".sudocode", "agent.json"), `{"rulesets": ["team_rules"]}`)
	w.commit("tracker")

	task, err := w.orch.Start(ctx, orchestrator.StartInput{IssueID: issue.ID, Agent: "COMMAND", Config: command("cat >/dev/null")})
	if err != nil {
		t.Fatal(err)
	}
	if task.IssueID != issue.ID || task.Description != issue.ID+": Refresh tokens" {
		t.Fatalf("task = %+v", task)
	}
	w.wait(task.ID)
	rep, err := w.orch.Report(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Issue " + issue.ID + ": Refresh tokens", "Tokens must be refreshable.",
		"## Spec " + spec.ID + ": Auth", "Tokens expire after one hour.", "One hour from issue or last use?",
		"Epic: accounts", "Everything about accounts", "Audit sessions",
		blocker.ID + ": Add the users table (closed: Done in the schema migration)",
		"### go_style", "Run gofmt.", "### team_rules", "Write tests first.", "discovered-from " + issue.ID,
		"### security", "Never log tokens.", "### sql_rules (for files matching db/**/*.sql)", "Migrations are reversible.",
		"## Comments on the issue", ": Keep the old tokens valid\n  until they expire.", "add_comment, with issue_id " + issue.ID,
	} {
		if !strings.Contains(rep.Prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, rep.Prompt)
		}
	}
	if strings.Contains(rep.Prompt, "Use black.") || strings.Contains(rep.Prompt, "Cursor things.") || strings.Contains(rep.Prompt, "Claude things.") {
		t.Errorf("prompt holds a ruleset that does not apply:\n%s", rep.Prompt)
	}
	if rep.IssueID != issue.ID {
		t.Errorf("report issue_id = %q", rep.IssueID)
	}
	if got := w.issue(issue.ID); !strings.Contains(got, `"status":"in_progress"`) || !strings.Contains(got, `"assignee":"agent:command:`+task.ID+`"`) {
		t.Errorf("issue = %s", got)
	}
}

func mustCreateRule(t *testing.T, s rulesets.Store, name string, tags []string, md string) {
	t.Helper()
	if tags == nil {
		tags = []string{}
	}
	if err := s.Create(context.Background(), rulesets.Ruleset{Name: name, Description: name, Tags: tags, Markdown: md}, "test"); err != nil {
		t.Fatal(err)
	}
}

func mustCreateScoped(t *testing.T, s rulesets.Store, name string, sc rulesets.Scope, md string) {
	t.Helper()
	if err := s.Create(context.Background(), rulesets.Ruleset{Name: name, Description: name, Tags: []string{}, Markdown: md, Scope: sc}, "test"); err != nil {
		t.Fatal(err)
	}
}

// chain makes three issues, each blocking the next, and commits them.
func (w *world) chain() [3]string {
	ctx := context.Background()
	var ids [3]string
	for i, title := range []string{"First step", "Second step", "Third step"} {
		is, err := w.tr.CreateIssue(ctx, store.IssueInput{Title: title, Description: "Do the " + strings.ToLower(title) + "."})
		if err != nil {
			w.t.Fatal(err)
		}
		ids[i] = is.ID
	}
	for i := 1; i < 3; i++ {
		if _, err := w.tr.Link(ctx, ids[i], ids[i-1], "blocks"); err != nil {
			w.t.Fatal(err)
		}
	}
	w.commit("tracker")
	return ids
}

// stepScript writes a file named after the issue in the prompt's first
// line, holding the prompt, and commits it.
const stepScript = `id=$(head -1 | sed 's/^# Issue \([^:]*\):.*/\1/'); ` +
	`printf '%s\n' "$SUDOCODE_TASK_INSTRUCTIONS" > "done-$id.txt" && git add . && git commit -qm "work on $id"`

// run_ready works a chain in order: each task is merged (squash), its
// issue closed with the merge commit, the next one started.
func TestRunReadyWorksAChain(t *testing.T) {
	w := newWorld(t)
	ids := w.chain()
	res, err := w.orch.RunReady(context.Background(), orchestrator.RunInput{Agent: "COMMAND", Config: command(stepScript), Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 3 {
		t.Fatalf("items = %+v", res.Items)
	}
	for i, it := range res.Items {
		if it.IssueID != ids[i] || it.Outcome != orchestrator.IssueMerged || it.Commit == "" {
			t.Fatalf("item %d = %+v", i, it)
		}
		if got := w.issue(ids[i]); !strings.Contains(got, `"status":"closed"`) || !strings.Contains(got, it.Commit) {
			t.Errorf("issue %s = %s", ids[i], got)
		}
		if got, want := w.taskEvents(ids[i]), []string{"started " + it.TaskID, "merged " + it.TaskID}; !slices.Equal(got, want) {
			t.Errorf("the history of %s says of its task %q, want %q", ids[i], got, want)
		}
		if msg := testkit.Git(t, w.repo, "log", "-1", "--format=%B", it.Commit); !strings.Contains(msg, ids[i]) {
			t.Errorf("commit message %q does not name %s", msg, ids[i])
		}
		if b, err := os.ReadFile(filepath.Join(w.repo, "done-"+ids[i]+".txt")); err != nil || !strings.Contains(string(b), "# Issue "+ids[i]) {
			t.Errorf("done-%s.txt = %q, %v", ids[i], b, err)
		}
	}
	if n := testkit.Git(t, w.repo, "rev-list", "--count", "HEAD"); n != "4" { // the tracker, three squashes
		t.Errorf("main has %s commits", n)
	}
	// Warm worktrees (detached, named warm-…) stay for the next task; no
	// task worktree does.
	for i, line := range strings.Split(testkit.Git(t, w.repo, "worktree", "list"), "\n") {
		if i > 0 && !strings.Contains(line, "/warm-") {
			t.Errorf("worktree left: %s", line)
		}
	}
	if br := testkit.Git(t, w.repo, "branch", "--list", "sudocode/*"); br != "" {
		t.Errorf("branches left: %s", br)
	}
}

// A task that fails leaves its issue open with the failure recorded, and
// the issues it blocks are not started.
func TestRunReadyStopsAtAFailure(t *testing.T) {
	w := newWorld(t)
	ids := w.chain()
	script := `if grep -q 'Second step'; then echo broken >&2; exit 3; fi; ` + stepScript
	res, err := w.orch.RunReady(context.Background(), orchestrator.RunInput{Agent: "COMMAND", Config: command(script)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 2 || res.Items[0].Outcome != orchestrator.IssueMerged || res.Items[1].Outcome != orchestrator.IssueFailed || res.Items[1].IssueID != ids[1] {
		t.Fatalf("items = %+v", res.Items)
	}
	// The item says why in words, as the note on the issue does.
	if got, want := res.Items[1].Error, "The agent exited with code 3: broken"; got != want {
		t.Errorf("the failed item's error %q, want %q", got, want)
	}
	got := w.issue(ids[1])
	// The failure reads as a sentence, as on the dashboard, not as the
	// details' Go or JSON form.
	if !strings.Contains(got, `"status":"open"`) || !strings.Contains(got, "Agent task "+res.Items[1].TaskID) ||
		!strings.Contains(got, "The agent exited with code 3: broken") || strings.Contains(got, "map[") {
		t.Errorf("failed issue = %s", got)
	}
	if got, want := w.taskEvents(ids[1]), []string{"started " + res.Items[1].TaskID, "failed " + res.Items[1].TaskID}; !slices.Equal(got, want) {
		t.Errorf("the failed issue's history says of its task %q, want %q", got, want)
	}
	if got := w.issue(ids[2]); !strings.Contains(got, `"status":"open"`) || !strings.Contains(got, `"assignee":null`) {
		t.Errorf("dependent issue = %s", got)
	}
	if _, err := w.orch.Merge(context.Background(), res.Items[1].TaskID, orchestrator.MergeInput{}); err == nil || !strings.Contains(err.Error(), "failed") {
		t.Errorf("merge of a failed task: %v", err)
	}
}

// startOn starts a task that runs script on a fresh issue.
func (w *world) startOn(title, script string) (orchestrator.Task, string) {
	w.t.Helper()
	is, err := w.tr.CreateIssue(context.Background(), store.IssueInput{Title: title})
	if err != nil {
		w.t.Fatal(err)
	}
	w.commit("tracker")
	task, err := w.orch.Start(context.Background(), orchestrator.StartInput{IssueID: is.ID, Agent: "COMMAND", Config: command(script)})
	if err != nil {
		w.t.Fatal(err)
	}
	return task, is.ID
}

// startDone starts a task on a fresh issue that runs script, and waits for it.
func (w *world) startDone(script string) (orchestrator.Task, string) {
	w.t.Helper()
	task, id := w.startOn("Greet", script)
	if task = w.wait(task.ID); task.Status != orchestrator.StatusCompleted {
		w.t.Fatalf("task %+v", task)
	}
	return task, id
}

// The refusals leave the user's checkout and the tracker's files as they
// were: a conflict (listing the files), a failing check, and uncommitted
// changes to a file the merge changes.
func TestMergeRefusals(t *testing.T) {
	t.Run("conflict", func(t *testing.T) {
		w := newWorld(t)
		task, _ := w.startDone(`printf 'agent\n' > README && git commit -qam agent`)
		writeFile(t, filepath.Join(w.repo, "README"), "user\n")
		w.commit("user edit")
		w.refused(task, "conflicting files: README")
	})
	t.Run("check", func(t *testing.T) {
		w := newWorld(t)
		writeFile(t, filepath.Join(w.repo, ".sudocode", "agent.json"), `{"merge": {"check": "test -f greeting.txt && echo checked && exit 4"}}`)
		if _, err := orchestrator.TrustFile(context.Background(), w.repo, "", userenv.Env{}); err != nil { // as the user would
			t.Fatal(err)
		}
		task, _ := w.startDone(`printf 'hi\n' > greeting.txt && git add greeting.txt && git commit -qm agent`)
		w.refused(task, "failed with exit code 4")
		logs, _ := w.orch.Logs(context.Background(), task.ID, 0, 0)
		found := false
		for _, e := range logs {
			found = found || (e.Event.Text == "checked" && e.Event.Data["phase"] == orchestrator.PhaseCheck)
		}
		if !found {
			t.Errorf("the check's output is not in the task's log")
		}
	})
	t.Run("dirty", func(t *testing.T) {
		w := newWorld(t)
		task, _ := w.startDone(`printf 'agent\n' > README && git commit -qam agent`)
		writeFile(t, filepath.Join(w.repo, "README"), "uncommitted\n")
		w.refused(task, "uncommitted changes to files the merge changes: README")
	})
	t.Run("untracked", func(t *testing.T) { // a file of the user's the merge would overwrite
		w := newWorld(t)
		task, _ := w.startDone(`printf 'agent\n' > new.txt && git add new.txt && git commit -qm agent`)
		writeFile(t, filepath.Join(w.repo, "new.txt"), "the user's own\n")
		w.refused(task, "uncommitted changes to files the merge changes: new.txt")
	})
}

// refused merges task, expecting a refusal naming want that changes
// nothing, then shows the task can still be merged once the cause is gone
// only where that is the test's point.
func (w *world) refused(task orchestrator.Task, want string) {
	w.t.Helper()
	before := w.snapshot()
	_, err := w.orch.Merge(context.Background(), task.ID, orchestrator.MergeInput{})
	if err == nil || !strings.Contains(err.Error(), want) {
		w.t.Fatalf("merge: %v, want a refusal with %q", err, want)
	}
	if after := w.snapshot(); after != before {
		w.t.Errorf("the refusal changed the checkout:\nbefore %s\nafter %s", before, after)
	}
	if got, _ := w.orch.Get(context.Background(), task.ID); got.WorktreePath == "" {
		w.t.Errorf("the refusal removed the task's worktree")
	}
}

// A review sent to the agent (update_task with instructions) is recorded
// on the issue, which is in progress again, once; one sent when its issue
// is closed leaves the issue closed.
func TestReviewIsRecordedOnTheIssue(t *testing.T) {
	w := newWorld(t)
	task, id := w.startDone(`printf 'hi\n' > greeting.txt`)
	if _, err := w.orch.Update(context.Background(), task.ID, orchestrator.UpdateInput{Instructions: "Use a friendlier greeting.\nAnd a newline."}); err != nil {
		t.Fatal(err)
	}
	w.wait(task.ID)
	got := w.issue(id)
	if strings.Count(got, "Review sent to agent task "+task.ID) != 1 || !strings.Contains(got, `\u003e Use a friendlier greeting.\n\u003e And a newline.`) ||
		!strings.Contains(got, `"status":"in_progress"`) {
		t.Errorf("issue = %s", got)
	}

	if _, err := w.tr.CloseIssues(context.Background(), []string{id}, "done by hand"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.orch.Update(context.Background(), task.ID, orchestrator.UpdateInput{Instructions: "One more thing."}); err != nil {
		t.Fatal(err)
	}
	w.wait(task.ID)
	if got := w.issue(id); !strings.Contains(got, `\u003e One more thing.`) || !strings.Contains(got, `"status":"closed"`) {
		t.Errorf("a review of a closed issue: %s", got)
	}
}

// run_ready runs at most parallel agents at a time, and starts the next as
// one finishes.
func TestRunReadyCapsConcurrency(t *testing.T) {
	w := newWorld(t)
	for i := range 4 {
		if _, err := w.tr.CreateIssue(context.Background(), store.IssueInput{Title: "Independent " + string(rune('a'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	w.commit("tracker")
	res, err := w.orch.RunReady(context.Background(), orchestrator.RunInput{Agent: "COMMAND", Config: command("sleep 0.4; " + stepScript), Parallel: 2, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 3 {
		t.Fatalf("items = %+v, want the limit of 3", res.Items)
	}
	tasks, err := w.orch.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for _, a := range tasks {
		at := 0
		for _, b := range tasks { // tasks running when a started
			if !b.StartedAt.After(*a.StartedAt) && b.FinishedAt.After(*a.StartedAt) {
				at++
			}
		}
		most = max(most, at)
	}
	if most != 2 {
		t.Errorf("at most %d agents ran at once, want 2", most)
	}
}

// A task of an issue is started from the issue, which it puts in progress;
// Create does not make one bare, with its issue left as it was.
func TestTaskOfAnIssueIsNotCreatedBare(t *testing.T) {
	w := newWorld(t)
	is, err := w.tr.CreateIssue(context.Background(), store.IssueInput{Title: "Greet"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.orch.Create(context.Background(), orchestrator.CreateInput{Agent: "COMMAND", Description: "bare", Config: command("true"), IssueID: is.ID}); err == nil {
		t.Fatal("a task of an issue was created past Start")
	}
	if ts, _ := w.orch.List(context.Background()); len(ts) != 0 {
		t.Errorf("tasks made: %+v", ts)
	}
}

// A run_ready call that ends before its tasks do (its client went away)
// leaves them to the next call, which takes them up: the first step's
// task, finished after the first call ended, is merged by the second,
// which then works the rest of the chain.
func TestRunReadyTakesUpAnEndedCallsTasks(t *testing.T) {
	w := newWorld(t)
	ids := w.chain()
	script := `case "$(printf '%s\n' "$SUDOCODE_TASK_INSTRUCTIONS" | head -1)" in *"First step"*) while [ ! -f release ]; do sleep 0.02; done; rm release;; esac; ` + stepScript
	in := orchestrator.RunInput{Agent: "COMMAND", Config: command(script), Merge: orchestrator.MergeInput{Strategy: "squash"}}
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		w.orch.RunReady(ctx, in)
	}()
	var first orchestrator.Task
	testkit.WaitFor(t, 30*time.Second, "run_ready's first task to start", func() bool {
		if ts, _ := w.orch.List(context.Background()); len(ts) == 1 && ts[0].WorktreePath != "" {
			first = ts[0]
			return true
		}
		return false
	})
	cancel() // the call ends; its task runs on
	testkit.Receive(t, 30*time.Second, "the first call to return", ended)
	writeFile(t, filepath.Join(first.WorktreePath, "release"), "")
	w.wait(first.ID)

	ctx2, cancel2 := context.WithTimeout(context.Background(), testkit.Scale(time.Minute))
	defer cancel2()
	res, err := w.orch.RunReady(ctx2, in)
	if err != nil {
		ts, _ := w.orch.List(context.Background())
		for _, x := range ts {
			logs, _ := w.orch.Logs(context.Background(), x.ID, 0, 0)
			t.Logf("task %s %s %s: %+v", x.ID, x.Status, x.Description, logs)
		}
		t.Fatal(err)
	}
	if len(res.Items) != 3 || res.Items[0].TaskID != first.ID {
		t.Fatalf("items = %+v, want the first call's task first, then the rest of the chain", res.Items)
	}
	for i, it := range res.Items {
		if it.IssueID != ids[i] || it.Outcome != orchestrator.IssueMerged {
			t.Errorf("item %d = %+v", i, it)
		}
	}
	// Taken up once: a third call finds nothing left.
	if res, err := w.orch.RunReady(context.Background(), in); err != nil || len(res.Items) != 0 {
		t.Fatalf("a third call: %+v, %v", res.Items, err)
	}
}

// A long discussion does not crowd the prompt: the latest comments come,
// oldest of them first, with how many earlier ones were left out.
func TestPromptCarriesTheLatestComments(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	is, err := w.tr.CreateIssue(ctx, store.IssueInput{Title: "Talked about"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 25 {
		if _, err := w.tr.AddComment(ctx, is.ID, fmt.Sprintf("note %02d", i)); err != nil {
			t.Fatal(err)
		}
	}
	p, err := app.Prompt(ctx, w.tr, w.rules, nil, "", is.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p, "(5 earlier comments left out: show_issue has them all.)") || strings.Contains(p, "note 04") ||
		!strings.Contains(p, "note 05") || strings.Index(p, "note 05") > strings.Index(p, "note 24") {
		t.Errorf("the prompt's comments:\n%s", p)
	}
}
