package mcpagent_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// tracked initializes a tracker in the fixture's repository (once), adds
// an issue titled title and commits, returning the issue's id.
func (f *fixture) tracked(title string) string {
	f.t.Helper()
	ctx := context.Background()
	dir := filepath.Join(f.repo, ".sudocode")
	if _, err := store.FindFrom(f.repo); err != nil {
		if _, err := store.Init(f.repo, "app"); err != nil {
			f.t.Fatal(err)
		}
	}
	r, err := store.Open(ctx, dir, "test")
	if err != nil {
		f.t.Fatal(err)
	}
	defer r.Close()
	is, err := r.CreateIssue(ctx, store.IssueInput{Title: title, Description: "Please " + strings.ToLower(title) + "."})
	if err != nil {
		f.t.Fatal(err)
	}
	testkit.Git(f.t, f.repo, "add", "-A")
	testkit.Git(f.t, f.repo, "commit", "-qm", "tracker")
	return is.ID
}

// onIssue starts a COMMAND task running sh -c script on a new tracked
// issue with title; it returns the task and the issue's id.
func (f *fixture) onIssue(title, script string) (created, string) {
	f.t.Helper()
	id := f.tracked(title)
	var c created
	f.mustSucceed("create_task", map[string]any{"tool": "COMMAND", "issue_id": id,
		"config": map[string]any{"command": []string{"sh", "-c", script}}}, &c)
	return c, id
}

// showIssue reads an issue from the tracker's files as they are now.
func (f *fixture) showIssue(id string) map[string]any {
	f.t.Helper()
	ctx := context.Background()
	r, err := store.Open(ctx, filepath.Join(f.repo, ".sudocode"), "test")
	if err != nil {
		f.t.Fatal(err)
	}
	defer r.Close()
	d, err := r.ShowIssue(ctx, id)
	if err != nil {
		f.t.Fatal(err)
	}
	b, _ := json.Marshal(d)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// create_task with issue_id assembles the prompt (report_task shows it),
// names the issue on the task (task://{id}), puts the issue in progress;
// merge_task merges and closes it with the commit.
func TestCreateTaskFromIssueAndMerge(t *testing.T) {
	f := newFixture(t)
	c, id := f.onIssue("Add a greeting", "echo hi > hi.txt && git add hi.txt && git commit -qm hi")
	if is := f.showIssue(id); is["status"] != "in_progress" || is["assignee"] != "agent:command:"+c.TaskID {
		t.Errorf("issue after start = %v", is)
	}
	f.wait(c.TaskID)
	var rep struct {
		IssueID string `json:"issue_id"`
		Prompt  string `json:"prompt"`
	}
	f.mustSucceed("report_task", map[string]any{"taskId": c.TaskID}, &rep)
	if rep.IssueID != id || !strings.Contains(rep.Prompt, "# Issue "+id+": Add a greeting") || !strings.Contains(rep.Prompt, "Please add a greeting.") {
		t.Errorf("report = %+v", rep)
	}
	if text, _ := f.read("task://" + c.TaskID); !strings.Contains(text, `"issue_id": "`+id+`"`) {
		t.Errorf("task://%s does not name its issue: %s", c.TaskID, text)
	}
	var m struct {
		Commit      string   `json:"commit"`
		Base        string   `json:"base"`
		Files       []string `json:"files"`
		CloseReason string   `json:"close_reason"`
	}
	f.mustSucceed("merge_task", map[string]any{"taskId": c.TaskID}, &m)
	if m.Base != "main" || len(m.Files) != 1 || m.Files[0] != "hi.txt" || testkit.Git(t, f.repo, "rev-parse", "HEAD") != m.Commit {
		t.Errorf("merge = %+v", m)
	}
	if msg := testkit.Git(t, f.repo, "log", "-1", "--format=%s"); msg != "Add a greeting ("+id+")" {
		t.Errorf("squash message = %q", msg)
	}
	if is := f.showIssue(id); is["status"] != "closed" || !strings.Contains(is["close_reason"].(string), m.Commit) {
		t.Errorf("issue after merge = %v", is)
	}
	if r := f.call("merge_task", map[string]any{"taskId": c.TaskID}); r.Status != "error" || r.Error.Type != "not_found" {
		t.Errorf("merging again: %+v", r)
	}
}

// end_task hands the task's issue back: open again, unassigned, with a
// line saying the task was ended; list_tasks reads the task ended.
func TestEndTaskReopensItsIssue(t *testing.T) {
	f := newFixture(t)
	c, id := f.onIssue("Add a farewell", "echo bye > bye.txt")
	f.wait(c.TaskID)
	f.mustSucceed("end_task", map[string]any{"taskId": c.TaskID}, nil)
	is := f.showIssue(id)
	if desc, _ := is["description"].(string); is["status"] != "open" || (is["assignee"] != nil && is["assignee"] != "") ||
		!strings.Contains(desc, "Agent task "+c.TaskID+" (command) was ended") {
		t.Errorf("issue after end_task = %v", is)
	}
	var list struct {
		Tasks []struct{ ID, State string }
	}
	f.mustSucceed("list_tasks", map[string]any{}, &list)
	if len(list.Tasks) != 1 || list.Tasks[0].State != "ended" {
		t.Errorf("list_tasks = %+v", list)
	}
}
