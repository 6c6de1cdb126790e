package mcpagent_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/testkit"
)

func TestResourceLists(t *testing.T) {
	f := newFixture(t)
	rs, err := f.cs.ListResources(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range rs.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	if got := fmt.Sprint(uris); got != "[agent://status agent://tasks task://list]" {
		t.Errorf("resources = %s", got)
	}
	ts, err := f.cs.ListResourceTemplates(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var tmpls []string
	for _, r := range ts.ResourceTemplates {
		tmpls = append(tmpls, r.URITemplate)
	}
	slices.Sort(tmpls)
	want := "[branch://{+branchName}/tasks log://{logType}/{date} project://{projectPath}/status session://{sessionType}/{sessionId} task://{id} task://{id}/logs task://{id}/result]"
	if got := fmt.Sprint(tmpls); got != want {
		t.Errorf("templates = %s", got)
	}
}

func decode[T any](t *testing.T, text string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	return v
}

// Every resource and template returns the real state of a finished task.
func TestReadResources(t *testing.T) {
	f := newFixture(t)
	c := f.command("Print lines", `echo "line one"; echo "line two"; echo "multi
line"`, map[string]any{"branch": "feature/print"})
	f.wait(c.TaskID)

	text, mime := f.read("agent://status")
	st := decode[struct {
		Server, Project string
		Overview        struct {
			Active   int            `json:"active"`
			ByStatus map[string]int `json:"by_status"`
			Kinds    []struct {
				Kind      string `json:"kind"`
				Available bool   `json:"available"`
			} `json:"kinds"`
		} `json:"overview"`
	}](t, text)
	if mime != "application/json" || st.Project != f.repo || st.Overview.Active != 0 || len(st.Overview.Kinds) != 5 {
		t.Errorf("agent://status = %s", text)
	}

	list, _ := f.read("task://list")
	same, _ := f.read("agent://tasks")
	tl := decode[struct {
		Count int
		Tasks []struct{ ID, Status, Branch string }
	}](t, list)
	if list != same || tl.Count != 1 || tl.Tasks[0].ID != c.TaskID || tl.Tasks[0].Status != "completed" {
		t.Errorf("task://list = %s\nagent://tasks = %s", list, same)
	}

	text, _ = f.read("task://" + c.TaskID)
	tv := decode[struct {
		Task struct {
			ID, Instructions string
		}
		Report    struct{ Status string }
		RecentLog []string `json:"recent_log"`
	}](t, text)
	if tv.Task.ID != c.TaskID || tv.Report.Status != "completed" || len(tv.RecentLog) < 3 {
		t.Errorf("task://{id} = %s", text)
	}

	logs, mime := f.read("task://" + c.TaskID + "/logs")
	if mime != "text/plain" || !strings.Contains(logs, "log: line one\n") || !strings.Contains(logs, "log: line two\n") {
		t.Errorf("task://{id}/logs (%s) = %s", mime, logs)
	}
	if !strings.HasPrefix(logs, "# task "+c.TaskID+" (completed) on feature/print: ") {
		t.Errorf("logs header: %s", logs)
	}

	text, _ = f.read("task://" + c.TaskID + "/result")
	rv := decode[struct {
		TaskID, Status string
		Result         struct {
			ExitCode *int `json:"exit_code"`
		}
	}](t, text)
	if rv.TaskID != c.TaskID || rv.Status != "completed" || rv.Result.ExitCode == nil || *rv.Result.ExitCode != 0 {
		t.Errorf("task://{id}/result = %s", text)
	}

	text, _ = f.read("branch://" + url.PathEscape("feature/print") + "/tasks")
	bv := decode[struct {
		Branch string
		Tasks  []struct{ ID string }
	}](t, text)
	if bv.Branch != "feature/print" || len(bv.Tasks) != 1 || bv.Tasks[0].ID != c.TaskID {
		t.Errorf("branch:// = %s", text)
	}
	// As users write it, with the slash, too.
	if raw, _ := f.read("branch://feature/print/tasks"); raw != text {
		t.Errorf("branch://feature/print/tasks = %s", raw)
	}
	text, _ = f.read("branch://none/tasks")
	if !strings.Contains(text, `"tasks": []`) {
		t.Errorf("branch://none/tasks = %s", text)
	}

	writeFile(t, f.repo+"/dirty.txt", "x")
	text, _ = f.read("project://" + url.PathEscape(f.repo) + "/status")
	pv := decode[struct {
		Project, Head, Branch string
		CheckoutChanges       int `json:"checkout_changes"`
		Tasks                 []struct{ ID string }
	}](t, text)
	if pv.Project != f.repo || pv.Head != testkit.Git(t, f.repo, "rev-parse", "HEAD") || pv.Branch != "main" || pv.CheckoutChanges != 1 || len(pv.Tasks) != 1 {
		t.Errorf("project:// = %s", text)
	}

	today := time.Now().UTC().Format(time.DateOnly)
	for _, uri := range []string{"log://all/today", "log://log/" + today} {
		text, _ = f.read(uri)
		if !strings.Contains(text, c.TaskID+" ") || !strings.Contains(text, "line two") {
			t.Errorf("%s = %s", uri, text)
		}
	}
	text, _ = f.read("log://usage/today")
	if strings.Contains(text, c.TaskID) {
		t.Errorf("log://usage/today lists a COMMAND's lines: %s", text)
	}
	text, _ = f.read("log://all/2001-01-01")
	if strings.Contains(text, c.TaskID) {
		t.Errorf("log of 2001: %s", text)
	}

	// A resource that does not exist and a malformed URI are both
	// invalid params (-32602, SEP-2164); the SDK's not-found error says
	// which, and names the URI.
	for uri, notFound := range map[string]bool{
		"task://nope":               true,
		"task://nope/logs":          true,
		"session://claudecode/none": true,
		"session://copilot/x":       false,
		"project://" + url.PathEscape("/elsewhere") + "/status": true,
		"log://bogus/today":    false,
		"log://all/2026-13-45": false,
	} {
		_, err := f.cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %v, want code %d", uri, err, jsonrpc.CodeInvalidParams)
			continue
		}
		if got := rpcErr.Message == "Resource not found" && strings.Contains(string(rpcErr.Data), uri); got != notFound {
			t.Errorf("%s: %v (data %s), want a not-found error: %v", uri, err, rpcErr.Data, notFound)
		}
	}
}

// A task's stderr lines are log entries of their own kind, which the
// historical log can be filtered by.
func TestStderrLogType(t *testing.T) {
	f := newFixture(t)
	c := f.command("Complain", `echo "fatal: not a good day" >&2; exit 128`, nil)
	f.wait(c.TaskID)
	logs, _ := f.read("task://" + c.TaskID + "/logs")
	if !strings.Contains(logs, "stderr: fatal: not a good day\n") {
		t.Errorf("task log:\n%s", logs)
	}
	for _, kind := range []string{"stderr", "permission_denied"} {
		if _, err := f.cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "log://" + kind + "/today"}); err != nil {
			t.Errorf("log://%s/today: %v", kind, err)
		}
	}
	if text, _ := f.read("log://stderr/today"); !strings.Contains(text, "not a good day") {
		t.Errorf("log://stderr/today = %s", text)
	}
}
