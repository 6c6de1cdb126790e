package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// serveWithTasks serves a dashboard over f whose tasks are orch's,
// following their issues in f's tracker.
func serveWithTasks(t testing.TB, f *fixture, orch *orchestrator.Orchestrator, o dashboard.Options) (*httptest.Server, *dashboard.Dashboard) {
	t.Helper()
	rules := o.Rulesets.Store
	if rules == nil {
		rules = f.rules
	}
	o.Tasks = follow(t, orch, rules)
	return serveDashboard(t, f, o)
}

// follow makes orch follow its tasks' issues in the tracker of its
// repository, as a project's tasks do, with the ruleset library rules.
func follow(t testing.TB, orch *orchestrator.Orchestrator, rules rulesets.Store) *orchestrator.Orchestrator {
	tr := app.NewTracker(orch.Repo(), "tester")
	t.Cleanup(func() { tr.Close() }) // before the orchestrator's close: a duty cut off is the next process's, as after a kill
	orch.FollowIssues(app.TaskIssues(tr, rules, "tester"))
	return orch
}

// serveDashboard serves a dashboard over f on a loopback test server.
func serveDashboard(t testing.TB, f *fixture, o dashboard.Options) (*httptest.Server, *dashboard.Dashboard) {
	t.Helper()
	o.Dir = f.dir
	o.Actor = "tester"
	if o.Rulesets.Store == nil {
		o.Rulesets = rulesets.Library{Store: f.rules}
	}
	o.TrackerPoll = 50 * time.Millisecond
	o.RulesetsPoll = 100 * time.Millisecond
	d := dashboard.New(o)
	ts := httptest.NewServer(d)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		d.Close()
		ts.Close()
	})
	return ts, d
}

func TestIssuesBoard(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{})
	var b dashboard.Board
	if code := getJSON(t, ts.Client(), ts.URL+"/api/issues", &b); code != 200 {
		t.Fatalf("GET /api/issues: %d", code)
	}
	if got := strings.Join(b.Statuses, ","); got != "open,in_progress,blocked,closed" {
		t.Errorf("statuses = %s", got)
	}
	if b.Counts["open"] != 1 || b.Counts["blocked"] != 1 || b.Counts["in_progress"] != 1 || b.Counts["closed"] != 0 || b.Truncated {
		t.Errorf("counts %v, truncated %v", b.Counts, b.Truncated)
	}
	if b.Total != 3 || len(b.Issues) != 3 || b.Ready != 1 || b.Blocked != 1 {
		t.Errorf("total %d, %d issues, ready %d, blocked %d; want 3, 3, 1, 1", b.Total, len(b.Issues), b.Ready, b.Blocked)
	}
	byID := map[string]dashboard.BoardItem{}
	for _, it := range b.Issues {
		byID[it.ID] = it
	}
	if it := byID[f.open]; !it.Ready || it.Blocked || it.Status != "open" || it.Priority != 1 {
		t.Errorf("the open issue: %+v; want ready, not blocked, P1", it)
	}
	w := byID[f.waiting]
	if w.Ready || !w.Blocked || len(w.BlockedBy) != 1 || w.BlockedBy[0].ID != f.open {
		t.Errorf("the blocked issue: %+v; want blocked by %s", w, f.open)
	}
	if it := byID[f.progress]; it.Ready || it.Status != "in_progress" || it.Title != "Write <script>alert(1)</script> docs" {
		t.Errorf("the in-progress issue: %+v", it)
	}
	if w.BlockedBy == nil || byID[f.open].BlockedBy == nil {
		t.Error("blocked_by must be a list, never null")
	}
}

func TestIssueDetail(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{})
	var d tracker.IssueDetail
	if code := getJSON(t, ts.Client(), ts.URL+"/api/issues/"+f.waiting, &d); code != 200 {
		t.Fatalf("status %d", code)
	}
	if d.ID != f.waiting || len(d.BlockedBy) != 1 || d.BlockedBy[0].ID != f.open || len(d.Relationships.Outgoing) != 1 {
		t.Errorf("detail %+v", d)
	}
	var e struct {
		Error struct{ Code, Message string }
	}
	if code := getJSON(t, ts.Client(), ts.URL+"/api/issues/demo-zzzz", &e); code != 404 || e.Error.Code != "not_found" {
		t.Errorf("a missing issue: %d %+v, want 404 not_found", code, e)
	}
}

func TestSpecWithFeedback(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{})
	var list tracker.SpecList
	if getJSON(t, ts.Client(), ts.URL+"/api/specs", &list); len(list.Specs) != 1 || list.Specs[0].ID != f.spec {
		t.Fatalf("specs %+v", list)
	}
	var v dashboard.SpecView
	if code := getJSON(t, ts.Client(), ts.URL+"/api/specs/"+f.spec, &v); code != 200 {
		t.Fatalf("status %d", code)
	}
	if !strings.Contains(v.Content, "Tokens are JWTs.") || v.Stale != 1 || len(v.Feedback) != 2 {
		t.Fatalf("spec view: stale %d, %d feedback, content %q", v.Stale, len(v.Feedback), v.Content)
	}
	for _, fb := range v.Feedback {
		switch fb.ID {
		case f.fbValid:
			if fb.Anchor.AnchorStatus == tracker.AnchorStale || fb.Location == nil || fb.Location.LineNumber != 8 ||
				!strings.Contains(fb.Location.LineText, "Refresh tokens rotate") {
				t.Errorf("the moved anchor: %+v at %+v; want line 8", fb.Anchor, fb.Location)
			}
		case f.fbStale:
			if fb.Anchor.AnchorStatus != tracker.AnchorStale || fb.Location != nil || fb.Anchor.OriginalLocation.LineNumber != 10 {
				t.Errorf("the stale anchor: %+v at %+v; want stale, no location, originally line 10", fb.Anchor, fb.Location)
			}
		default:
			t.Errorf("unexpected feedback %s", fb.ID)
		}
	}
}

func TestRulesetsAPI(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{})
	var list dashboard.RulesetList
	if getJSON(t, ts.Client(), ts.URL+"/api/rulesets", &list); len(list.Rulesets) != 1 || list.Rulesets[0].Name != "go_style" {
		t.Fatalf("rulesets %+v", list)
	}
	var r rulesets.Ruleset
	if code := getJSON(t, ts.Client(), ts.URL+"/api/rulesets/go_style", &r); code != 200 || !strings.Contains(r.Markdown, "Keep functions **small**") {
		t.Errorf("get: %d %+v", code, r)
	}
	if code := getJSON(t, ts.Client(), ts.URL+"/api/rulesets/missing_one", nil); code != 404 {
		t.Errorf("a missing ruleset: %d, want 404", code)
	}
	if code := getJSON(t, ts.Client(), ts.URL+"/api/rulesets/Bad-Name", nil); code != 400 {
		t.Errorf("an invalid name: %d, want 400", code)
	}
}

func TestNoTracker(t *testing.T) {
	f := newFixture(t)
	d := dashboard.New(dashboard.Options{Dir: t.TempDir(), Rulesets: rulesets.Library{Store: f.rules}})
	ts := httptest.NewServer(d)
	defer func() { ts.Close(); d.Close() }()
	var info dashboard.Info
	getJSON(t, ts.Client(), ts.URL+"/api/info", &info)
	if info.Tracker.Available || !strings.Contains(info.Tracker.Reason, "no .sudocode") || !strings.Contains(info.Tracker.Hint, "init") {
		t.Errorf("tracker %+v: want unavailable with a reason and a hint", info.Tracker)
	}
	if info.Tasks.Available || !info.Rulesets.Available || !info.ReadOnly {
		t.Errorf("info %+v", info)
	}
	if code := getJSON(t, ts.Client(), ts.URL+"/api/issues", nil); code != 404 {
		t.Errorf("/api/issues without a tracker: %d, want 404", code)
	}
	var e struct {
		Error struct{ Code, Message string }
	}
	if code := getJSON(t, ts.Client(), ts.URL+"/api/tasks", &e); code != 503 || !strings.Contains(e.Error.Message, "tasks are unavailable") {
		t.Errorf("/api/tasks without an orchestrator: %d %+v, want 503", code, e)
	}
}

// TestTrackerChangesArePushed: a change by another writer (here a second
// open tracker, as the CLI in another process) reaches /api/events.
func TestTrackerChangesArePushed(t *testing.T) {
	f := newFixture(t)
	ts, d := serveDashboard(t, f, dashboard.Options{})
	resp, err := ts.Client().Get(ts.URL + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	events := readEvents(resp.Body)
	other, err := store.Open(context.Background(), f.repo.Dir, "someone")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.CreateIssue(context.Background(), store.IssueInput{Title: "From another process"}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, 5*time.Second, func(e sseEvent) bool { return e.Name == dashboard.TopicTracker })
	d.Changed(dashboard.TopicRulesets)
	waitEvent(t, events, 5*time.Second, func(e sseEvent) bool { return e.Name == dashboard.TopicRulesets })
	// A ruleset written behind the dashboard's back is polled.
	desc, md := "d", "# m"
	if _, err := (rulesets.Library{Store: f.rules}).Upsert(context.Background(), rulesets.Patch{Name: "new_one", Description: &desc, Markdown: &md}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, 5*time.Second, func(e sseEvent) bool { return e.Name == dashboard.TopicRulesets })
}

const threeLines = `for i in 1 2 3; do echo line $i; sleep 0.2; done; echo hello > f.txt; git add f.txt; git -c user.name=t -c user.email=t@example.com commit -q -m add-f; echo uncommitted > g.txt; git add g.txt`

func createCommandTask(t *testing.T, o *orchestrator.Orchestrator, script string) orchestrator.Task {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	task, err := o.Create(context.Background(), orchestrator.CreateInput{Agent: "COMMAND", Description: "Print three lines", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func TestTaskLogStreamAndDiff(t *testing.T) {
	f := newFixture(t)
	o := f.openTasks(t)
	ts, _ := serveWithTasks(t, f, o, dashboard.Options{})
	task := createCommandTask(t, o, threeLines)

	resp, err := ts.Client().Get(ts.URL + "/api/tasks/" + task.ID + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := readEvents(resp.Body)
	first := waitEvent(t, events, 5*time.Second, func(e sseEvent) bool { return e.Name == "task" })
	if !strings.Contains(first.Data, task.ID) {
		t.Errorf("first task event %q", first.Data)
	}
	var lastSeq int64
	for i := 1; i <= 3; i++ {
		want := fmt.Sprintf("line %d", i)
		e := waitEvent(t, events, 10*time.Second, func(e sseEvent) bool { return e.Name == "log" && strings.Contains(e.Data, want) })
		var se orchestrator.StoredEvent
		if err := json.Unmarshal([]byte(e.Data), &se); err != nil {
			t.Fatal(err)
		}
		if se.Event.Text != want || fmt.Sprint(se.Seq) != e.ID || se.Seq <= lastSeq {
			t.Errorf("log event %+v (id %s) after seq %d", se, e.ID, lastSeq)
		}
		lastSeq = se.Seq
	}
	done := waitEvent(t, events, 15*time.Second, func(e sseEvent) bool {
		return e.Name == "task" && strings.Contains(e.Data, `"status":"completed"`)
	})
	_ = done

	// A reconnecting EventSource sends Last-Event-ID: only newer entries follow.
	req, _ := http.NewRequest("GET", ts.URL+"/api/tasks/"+task.ID+"/stream", nil)
	req.Header.Set("Last-Event-ID", fmt.Sprint(lastSeq))
	resp2, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	again := readEvents(resp2.Body)
	e := waitEvent(t, again, 5*time.Second, func(e sseEvent) bool { return e.Name == "log" })
	if !strings.Contains(e.Data, "completion") {
		t.Errorf("after Last-Event-ID %d the first entry is %s, want the completion", lastSeq, e.Data)
	}

	var logs dashboard.TaskLogs
	if getJSON(t, ts.Client(), ts.URL+"/api/tasks/"+task.ID+"/logs?since=1&limit=2", &logs); len(logs.Events) != 2 || logs.Events[0].Seq != 2 || logs.LastSeq != 3 {
		t.Errorf("logs since 1, limit 2: %+v", logs)
	}
	if code := getJSON(t, ts.Client(), ts.URL+"/api/tasks/"+task.ID+"/logs?since=x", nil); code != 400 {
		t.Errorf("a bad since: %d, want 400", code)
	}
	var list dashboard.TaskList
	if getJSON(t, ts.Client(), ts.URL+"/api/tasks", &list); len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID {
		t.Errorf("tasks %+v", list)
	}
	var diff dashboard.TaskDiff
	getJSON(t, ts.Client(), ts.URL+"/api/tasks/"+task.ID+"/diff", &diff)
	if !strings.Contains(diff.Text, "+++ b/f.txt") || !strings.Contains(diff.Text, "+hello") || !strings.Contains(diff.Text, "+uncommitted") {
		t.Errorf("the task's diff lacks the committed f.txt or the uncommitted g.txt: %+v", diff)
	}
	if strings.Join(diff.Files, ",") != "f.txt,g.txt" || strings.Join(diff.Uncommitted, ",") != "g.txt" {
		t.Errorf("diff files %v, not committed yet %v", diff.Files, diff.Uncommitted)
	}
	if code := getJSON(t, ts.Client(), ts.URL+"/api/tasks/nope", nil); code != 404 {
		t.Errorf("a missing task: %d, want 404", code)
	}
}

// TestDiffIsHardened: a repository whose configuration names an external
// diff program and a textconv filter does not make a task's diff run them.
func TestDiffIsHardened(t *testing.T) {
	f := newFixture(t)
	marker := f.dir + "/ran"
	testkit.Git(t, f.dir, "config", "diff.external", "sh -c 'touch "+marker+"'")
	testkit.Git(t, f.dir, "config", "diff.evil.textconv", "sh -c 'touch "+marker+"; cat'")
	testkit.Git(t, f.dir, "config", "core.pager", "sh -c 'touch "+marker+"'")
	if err := writeFile(f.dir+"/.gitattributes", "*.txt diff=evil\n"); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, f.dir, "add", ".gitattributes")
	testkit.Git(t, f.dir, "commit", "-q", "-m", "attributes")
	o := f.openTasks(t)
	ts, _ := serveWithTasks(t, f, o, dashboard.Options{})
	task := createCommandTask(t, o, "echo one > a.txt")
	testkit.WaitFor(t, 30*time.Second, "the task to complete", func() bool {
		got, err := o.Get(context.Background(), task.ID)
		return err == nil && got.Status == orchestrator.StatusCompleted
	})
	var diff dashboard.TaskDiff
	if code := getJSON(t, ts.Client(), ts.URL+"/api/tasks/"+task.ID+"/diff", &diff); code != 200 || !strings.Contains(diff.Text, "+one") {
		t.Errorf("diff %d %+v", code, diff)
	}
	if fileExists(marker) {
		t.Error("git ran a program from the repository's configuration")
	}
}

func TestSecurityHeadersAndReadOnly(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{})
	for _, path := range []string{"/", "/api/issues", "/assets/app.js", "/api/nothing"} {
		resp, err := ts.Client().Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(got, "default-src 'self'") {
			t.Errorf("%s: CSP %q", path, got)
		}
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", path, got)
		}
	}
	resp, err := ts.Client().Post(ts.URL+"/api/issues", "application/json", strings.NewReader(`{"title":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	var refused fault.Envelope
	json.NewDecoder(resp.Body).Decode(&refused)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || refused.Error.Code != fault.Unauthenticated {
		t.Errorf("POST /api/issues without a token: %d %+v, want 401 unauthenticated (the dashboard is read-only)", resp.StatusCode, refused.Error)
	}
	// A foreign page's Origin is refused, the page's own is not; the rule
	// is every server's (mcpx.OriginAllowed), loopback spellings a browser
	// never sends for a local page included.
	for origin, want := range map[string]int{"https://evil.example": 403, ts.URL: 200, "http://localhost:1": 200,
		"http://127.0.0.2:1": 403, "http://[::ffff:127.0.0.1]:1": 403, "http://localhost.evil.example": 403} {
		req, _ := http.NewRequest("GET", ts.URL+"/api/info", nil)
		req.Header.Set("Origin", origin)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Origin %s: %d, want %d", origin, resp.StatusCode, want)
		}
	}
	// DNS rebinding: a loopback connection under a foreign name.
	req, _ := http.NewRequest("GET", ts.URL+"/api/issues", nil)
	req.Host = "attacker.example:80"
	resp, err = ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Host on loopback: %d, want 403", resp.StatusCode)
	}
}

func TestTokenCookie(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{Token: "s3cret"})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, path := range []string{"/", "/api/issues", "/api/events", "/assets/app.js", "/?token=wrong"} {
		resp, err := noRedirect.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without the token: %d, want 401", path, resp.StatusCode)
		}
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/issues", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with the bearer token: %d", resp.StatusCode)
	}
	resp, err = noRedirect.Get(ts.URL + "/?token=s3cret")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/?key=") || len(cookies) != 1 ||
		!cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("/?token=: %d, Location %q, cookies %+v", resp.StatusCode, resp.Header.Get("Location"), cookies)
	}
	req, _ = http.NewRequest("GET", ts.URL+"/api/issues", nil)
	req.AddCookie(cookies[0])
	resp, err = noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), f.open) {
		t.Errorf("with the cookie: %d %s", resp.StatusCode, body)
	}
}

// TestSpecBodyConfined: /api/specs/{id} never serves a file outside the
// project, whether a record's file_path (edited on disk, as a pull can)
// or a committed symlink leads there.
func TestSpecBodyConfined(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{})
	const secret = "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n"
	key := filepath.Join(t.TempDir(), "id_rsa")
	if err := writeFile(key, secret); err != nil {
		t.Fatal(err)
	}
	check := func(what string) {
		t.Helper()
		resp, err := ts.Client().Get(ts.URL + "/api/specs/" + f.spec)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || strings.Contains(string(body), "secret-key-material") {
			t.Errorf("%s: %d %s; want 400 without the outside file", what, resp.StatusCode, body)
		}
	}
	dir := filepath.Join(f.dir, store.DirName)
	specs := trackertest.RecordFile[tracker.SpecRecord](dir, f.spec)
	data, _ := os.ReadFile(specs)
	rel, _ := filepath.Rel(dir, key)
	edited := strings.Replace(string(data), `"file_path":"specs/`+f.spec+`.md"`, `"file_path":"`+filepath.ToSlash(rel)+`"`, 1)
	writeFile(specs, edited)
	check("a record leading outside")
	writeFile(specs, string(data))

	body := filepath.Join(dir, store.SpecsDir, f.spec+".md")
	os.Remove(body)
	os.Symlink(key, body)
	check("a symlinked body leading outside")
	if b, _ := os.ReadFile(key); string(b) != secret {
		t.Errorf("the outside file changed: %q", b)
	}
}
