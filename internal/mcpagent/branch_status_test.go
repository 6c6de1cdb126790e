package mcpagent_test

import (
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// A branch given as a full ref (refs/heads/x) is branch x, everywhere:
// the task's branch, the git ref, end_task's save and branch://; other
// refs are refused with a message naming the accepted forms.
func TestBranchGivenAsFullRef(t *testing.T) {
	f := newFixture(t)
	c := f.command("Full ref", `echo work > work.txt`, map[string]any{"branch": "refs/heads/feature/full-ref"})
	if c.Task.Branch != "feature/full-ref" {
		t.Fatalf("task branch = %q, want feature/full-ref", c.Task.Branch)
	}
	f.wait(c.TaskID)
	var e struct {
		Removal struct {
			SavedCommit string `json:"saved_commit"`
		} `json:"removal"`
	}
	r := f.mustSucceed("end_task", map[string]any{"taskId": c.TaskID}, &e)
	if e.Removal.SavedCommit == "" || !strings.Contains(r.Message, "branch feature/full-ref") {
		t.Fatalf("end_task: %s %+v", r.Message, e)
	}
	if got := testkit.Git(t, f.repo, "show", "refs/heads/feature/full-ref:work.txt"); got != "work" {
		t.Fatalf("work.txt on refs/heads/feature/full-ref = %q", got)
	}
	if refs := testkit.Git(t, f.repo, "for-each-ref", "--format=%(refname)", "refs/heads/refs/"); refs != "" {
		t.Fatalf("refs under refs/heads/refs/: %s", refs)
	}
	text, _ := f.read("branch://refs%2Fheads%2Ffeature%2Ffull-ref/tasks")
	if !strings.Contains(text, c.TaskID) {
		t.Errorf("branch://refs%%2Fheads%%2Ffeature%%2Ffull-ref/tasks does not list the task: %s", text)
	}

	branches := testkit.Git(t, f.repo, "branch", "--list")
	cmd := map[string]any{"command": []string{"true"}}
	for _, b := range []string{"refs/tags/v1", "refs/remotes/origin/x", "refs/heads/", "refs/heads/refs/heads/x"} {
		r := f.call("create_task", map[string]any{"tool": "COMMAND", "description": "x", "branch": b, "config": cmd})
		if r.Status != "error" || r.Error.Type != "validation_error" || !strings.Contains(r.Message, b) || !strings.Contains(r.Message, "refs/heads/") {
			t.Errorf("branch %q: %s %+v %q, want a validation error naming it and the accepted forms", b, r.Status, r.Error, r.Message)
		}
	}
	if got := testkit.Git(t, f.repo, "branch", "--list"); got != branches {
		t.Errorf("refused branches changed the branches:\n%s", got)
	}
}

// end_task's status: absent and null are the same (the natural final
// status), every final status is accepted, anything else is one error
// naming the valid values.
func TestEndTaskStatusValues(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		status any
		set    bool
		want   string
	}{
		{nil, false, "cancelled"},
		{nil, true, "cancelled"},
		{"cancelled", true, "cancelled"},
		{"completed", true, "completed"},
		{"failed", true, "failed"},
	} {
		c := f.command("Runs", `echo started; sleep 60`, nil)
		f.until("the agent to start", func() bool {
			evs, _ := f.orch.Logs(t.Context(), c.TaskID, 0, 0)
			return len(evs) > 0
		})
		args := map[string]any{"taskId": c.TaskID}
		if tc.set {
			args["status"] = tc.status
		}
		var e struct {
			Task struct{ Status string } `json:"task"`
		}
		f.mustSucceed("end_task", args, &e)
		if e.Task.Status != tc.want {
			t.Errorf("end_task %v: status %q, want %q", args, e.Task.Status, tc.want)
		}
	}
	for _, bad := range []string{"done", "in_progress", "COMPLETED", ""} {
		r := f.call("end_task", map[string]any{"taskId": "nope", "status": bad})
		if r.Status != "error" || r.Error.Type != "validation_error" || !strings.Contains(r.Message, "completed, failed, cancelled") {
			t.Errorf("end_task status %q: %s %+v %q, want one validation error naming completed, failed, cancelled", bad, r.Status, r.Error, r.Message)
		}
	}
}
