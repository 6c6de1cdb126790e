package dashboard_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/rulesets"
)

const (
	aliceKey = "alice-0123456789abcdef0123456789"
	bobKey   = "bob-0123456789abcdef0123456789ab"
	carolKey = "carol-0123456789abcdef0123456789"
	rootKey  = "root-0123456789abcdef0123456789ab"
	// alicePlan is alice's instructions: bob must not read them.
	alicePlan = "rotate-the-keys-of-project-falcon"
)

// On a server whose token file names its clients, the dashboard's task
// routes answer each client as MCP does: bob cannot read alice's task or
// stop, follow up or merge it, nor can bob's page (its cookie acts for
// bob), carol has no command grant, and an admin can.
func TestDashboardTaskBelongsToItsCreator(t *testing.T) {
	f := newFixture(t)
	o := f.openTasks(t)
	tokens := filepath.Join(t.TempDir(), "tokens")
	file := "alice " + aliceKey + " command\nbob " + bobKey + " command\ncarol " + carolKey + "\nroot " + rootKey + " admin\n"
	if err := os.WriteFile(tokens, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	auth, err := mcpx.NewAuth("", tokens, nil)
	if err != nil {
		t.Fatal(err)
	}
	lp := follow(t, o, f.rules)
	d := dashboard.New(dashboard.Options{Dir: f.dir, Actor: "tester", Rulesets: rulesets.Library{Store: f.rules}, Tasks: lp,
		CheckToken: func(tok string) bool { _, ok := auth.Check(tok); return ok }, ClientOf: auth.Check, TrackerPoll: 50 * time.Millisecond})
	ts := httptest.NewServer(dashboard.ActAs(auth, d))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		d.Close()
		ts.Close()
	})
	c := ts.Client()
	as := func(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} }

	start, _ := json.Marshal(map[string]any{"tool": "COMMAND", "description": "Rotate keys", "instructions": alicePlan,
		"config": map[string]any{"command": []string{"sleep", "600"}}})
	code, out := send(t, c, "POST", ts.URL+"/api/tasks", string(start), as(aliceKey))
	if code != http.StatusCreated {
		t.Fatalf("alice's start: %d %s", code, out)
	}
	var task orchestrator.Task
	if err := json.Unmarshal([]byte(out), &task); err != nil {
		t.Fatalf("alice's task: %v %s", err, out)
	}
	if task.Actor != "alice" {
		t.Errorf("alice's task belongs to %q", task.Actor)
	}
	refusal := "task " + task.ID + " belongs to client alice"

	for _, path := range []string{"", "/logs", "/report", "/stream", "/comments"} {
		req, _ := http.NewRequest("GET", ts.URL+"/api/tasks/"+task.ID+path, nil)
		req.Header.Set("Authorization", "Bearer "+bobKey)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK { // a stream would not end: its body is not read
			resp.Body.Close()
			t.Errorf("bob's GET /api/tasks/%s%s was answered", task.ID, path)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), refusal) {
			t.Errorf("bob's GET /api/tasks/%s%s: %d %s, want refused with %q", task.ID, path, resp.StatusCode, body, refusal)
		}
	}
	code, out = send(t, c, "GET", ts.URL+"/api/tasks", "", as(bobKey))
	if code != http.StatusOK || strings.Contains(out, alicePlan) || !strings.Contains(out, task.ID) {
		t.Errorf("bob's task list: %d %s, want alice's task without its instructions", code, out)
	}
	for _, action := range []struct{ path, body string }{
		{"/follow-up", `{"instructions":"stop rotating"}`}, {"/stop", `{}`}, {"/merge", `{}`},
		{"/comments", `{"file":"f.txt","line":1,"body":"why?"}`}, {"/review", `{"instructions":"stop rotating"}`},
	} {
		code, out := send(t, c, "POST", ts.URL+"/api/tasks/"+task.ID+action.path, action.body, as(bobKey))
		if code == http.StatusOK || !strings.Contains(out, refusal) {
			t.Errorf("bob's POST %s: %d %s, want refused with %q", action.path, code, out, refusal)
		}
	}

	// The page acts for the client whose token opened it: bob's page
	// cannot stop alice's task, and starts tasks as bob.
	cookie, key := tokenCookie(t, ts.URL, bobKey)
	page := map[string]string{"Origin": ts.URL, dashboard.PageKeyHeader: key}
	code, out = send(t, c, "POST", ts.URL+"/api/tasks/"+task.ID+"/stop", `{}`, page, cookie)
	if code == http.StatusOK || !strings.Contains(out, refusal) {
		t.Errorf("bob's page's stop: %d %s, want refused with %q", code, out, refusal)
	}
	code, out = send(t, c, "POST", ts.URL+"/api/tasks", string(start), page, cookie)
	var bobs orchestrator.Task
	if code != http.StatusCreated || json.Unmarshal([]byte(out), &bobs) != nil || bobs.Actor != "bob" {
		t.Errorf("bob's page's start: %d %s, want a task of bob's", code, out)
	}
	if code, out := send(t, c, "GET", ts.URL+"/api/tasks/"+task.ID, "", page, cookie); code == http.StatusOK || !strings.Contains(out, refusal) {
		t.Errorf("bob's page read alice's task: %d %s", code, out)
	}

	code, out = send(t, c, "POST", ts.URL+"/api/tasks", string(start), as(carolKey))
	if code == http.StatusCreated || !strings.Contains(out, "command grant") {
		t.Errorf("carol's COMMAND task: %d %s, want refused naming the command grant", code, out)
	}

	if code, out := send(t, c, "GET", ts.URL+"/api/tasks/"+task.ID, "", as(rootKey)); code != http.StatusOK || !strings.Contains(out, alicePlan) {
		t.Errorf("the admin's GET: %d %s", code, out)
	}
	if code, out := send(t, c, "POST", ts.URL+"/api/tasks/"+task.ID+"/stop", `{}`, as(rootKey)); code != http.StatusOK {
		t.Errorf("the admin's stop: %d %s", code, out)
	}
}
