package dashboard_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/orchestrator"
)

// TestCodeCommentsAPI: a task's code comments are added (with the token
// only), listed where their code is now, deleted, and sent with a
// follow-up as one review; a review with nothing in it is refused.
func TestCodeCommentsAPI(t *testing.T) {
	f := newFixture(t)
	o := f.openTasks(t)
	ts, _ := serveWithTasks(t, f, o, dashboard.Options{WriteToken: "w"})
	c := ts.Client()
	auth := map[string]string{"Authorization": "Bearer w"}
	script := `read line; printf 'one\ntwo\nthree\n' > code.txt`
	body, _ := json.Marshal(map[string]any{"tool": "COMMAND", "description": "Write code",
		"config": map[string]any{"command": []string{"sh", "-c", script}}})
	code, out := send(t, c, "POST", ts.URL+"/api/tasks", string(body), auth)
	if code != http.StatusCreated {
		t.Fatalf("start: %d %s", code, out)
	}
	var task orchestrator.Task
	json.Unmarshal([]byte(out), &task)
	task = waitStatus(t, o, task.ID, orchestrator.StatusCompleted, orchestrator.StatusWaiting)
	path := ts.URL + "/api/tasks/" + task.ID

	if code, _ := send(t, c, "POST", path+"/comments", `{"file":"code.txt","line":2,"body":"why two?"}`, nil); code != http.StatusUnauthorized {
		t.Errorf("a comment without the token: %d, want 401", code)
	}
	if code, out := send(t, c, "POST", path+"/comments", `{"file":"code.txt","line":7,"body":"x"}`, auth); code != http.StatusBadRequest {
		t.Errorf("a comment past the end: %d %s, want 400", code, out)
	}
	code, out = send(t, c, "POST", path+"/comments", `{"file":"code.txt","line":2,"body":"why two?"}`, auth)
	var two orchestrator.CodeComment
	if code != http.StatusCreated || json.Unmarshal([]byte(out), &two) != nil || two.Code != "two" || two.State != orchestrator.CommentOpen {
		t.Fatalf("a comment: %d %s", code, out)
	}
	code, out = send(t, c, "POST", path+"/comments", `{"file":"code.txt","line":3,"body":"gone soon"}`, auth)
	var three orchestrator.CodeComment
	if code != http.StatusCreated || json.Unmarshal([]byte(out), &three) != nil {
		t.Fatalf("a comment: %d %s", code, out)
	}
	if code, out := send(t, c, "DELETE", path+"/comments/"+three.ID, "", auth); code != http.StatusOK {
		t.Errorf("delete: %d %s", code, out)
	}

	// The file changes above the comment: the list shows it where it is.
	if err := os.WriteFile(filepath.Join(task.WorktreePath, "code.txt"), []byte("zero\none\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var list dashboard.CodeComments
	if code := getJSON(t, c, path+"/comments", &list); code != http.StatusOK || len(list.Comments) != 1 || list.Comments[0].Line != 3 || list.Comments[0].Stale {
		t.Fatalf("the comments: %d %+v", code, list)
	}

	code, out = send(t, c, "POST", path+"/review", `{"instructions":"and tidy up"}`, auth)
	var sent dashboard.SentReview
	if code != http.StatusOK || json.Unmarshal([]byte(out), &sent) != nil || len(sent.Comments) != 1 || !strings.Contains(sent.Task.Instructions, "code.txt:3\n> two\nwhy two?") {
		t.Fatalf("the review: %d %s", code, out)
	}
	waitStatus(t, o, task.ID, orchestrator.StatusCompleted, orchestrator.StatusWaiting)
	if code, out := send(t, c, "POST", path+"/review", `{"instructions":" "}`, auth); code != http.StatusBadRequest {
		t.Errorf("an empty review: %d %s, want 400", code, out)
	}
}
