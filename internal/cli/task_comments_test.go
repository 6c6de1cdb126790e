package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A task is reviewed from the shell as on the dashboard: comments on
// lines of its work (bad places refused), listed open, then sent with
// instructions as one follow-up the agent reads, after which they read
// sent; a review with nothing to send is refused with what to do.
func TestTaskCommentsAndReview(t *testing.T) {
	dir, env, first, _ := taskRepo(t)
	run := func(args ...string) result { return runMain(t, dir, env, "", args...) }
	agent := `if [ -f code.txt ]; then cat > asked.txt; else printf 'one\ntwo\nthree\n' > code.txt; fi`
	r := run("task", "start", first, "--agent", "command", "--command", agent, "--json")
	if r.code != 0 {
		t.Fatalf("task start: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	id := jsonField(t, r.stdout, "id")

	if r := run("task", "comment", id, "code.txt:2", "Say why two."); r.code != 0 || !strings.Contains(r.stdout, "on code.txt:2, open") {
		t.Fatalf("task comment: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	for _, where := range []string{"code.txt", "code.txt:0", "code.txt:x", ":3"} {
		if r := run("task", "comment", id, where, "x"); r.code != 2 || !strings.Contains(r.stderr, "FILE:LINE") {
			t.Errorf("task comment at %q: exit %d: %s", where, r.code, r.stderr)
		}
	}
	for _, where := range []string{"../code.txt:1", "code.txt:9"} {
		if r := run("task", "comment", id, where, "x"); r.code != 2 {
			t.Errorf("task comment at %q: exit %d: %s%s", where, r.code, r.stdout, r.stderr)
		}
	}
	if r := run("task", "comment", id, "none.txt:1", "x"); r.code != 3 {
		t.Errorf("task comment on a file the task does not have: exit %d: %s", r.code, r.stderr)
	}
	if out := run("task", "comments", id).stdout; !strings.Contains(out, "code.txt:2") || !strings.Contains(out, "open") || !strings.Contains(out, "Say why two.") {
		t.Errorf("task comments:\n%s", out)
	}

	if r := run("task", "review", id, "Then add a four."); r.code != 0 || !strings.Contains(r.stdout, "sent 1 comment to task "+id) {
		t.Fatalf("task review: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	var list struct {
		Tasks []struct {
			ID       string `json:"id"`
			Worktree string `json:"worktree_path"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(run("task", "list", "--json").stdout), &list); err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != id {
		t.Fatalf("task list: %+v %v", list, err)
	}
	asked, _ := os.ReadFile(filepath.Join(list.Tasks[0].Worktree, "asked.txt"))
	for _, want := range []string{"code.txt:2\n> two\nSay why two.", "Then add a four."} {
		if !strings.Contains(string(asked), want) {
			t.Errorf("the agent was asked:\n%s\nwithout %q", asked, want)
		}
	}
	var listed struct {
		Comments []struct {
			State  string `json:"state"`
			Review int    `json:"review"`
		} `json:"comments"`
	}
	if err := json.Unmarshal([]byte(run("task", "comments", id, "--json").stdout), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Comments) != 1 || listed.Comments[0].State != "sent" || listed.Comments[0].Review != 1 {
		t.Errorf("the comments after the review: %+v", listed.Comments)
	}
	if r := run("task", "review", id); r.code != 2 || !strings.Contains(r.stderr, "nothing to send") {
		t.Errorf("a review with nothing to send: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}
