package extcheck

// The MCP Inspector's CLI (@modelcontextprotocol/inspector, --cli) lists
// and calls the tools of every server, over stdio (the Inspector starts
// the server, one process per call, so state kept on disk is checked
// across processes too) and over Streamable HTTP (one server for all the
// calls). Each call is one Inspector run with --format json; the checks
// are on its JSON output.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

func TestInspector(t *testing.T) {
	tl := requireTools(t)
	t.Logf("tools ready in %s: node %s, %s@%s", toolsTime.Round(time.Millisecond), nodeVersion, inspectorPackage, inspectorVersion)
	for _, sc := range servers {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(sc.name+"/"+transport, func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				dir := sc.prepare(t)
				home := t.TempDir()
				c := &inspector{tl: tl, dir: dir, home: home}
				if transport == "stdio" {
					c.suffix = append([]string{"--", sudocodeBin}, sc.stdio(dir)...)
				} else {
					url := startHTTP(t, dir, home, sc.http(dir)...)
					c.prefix = []string{url, "--transport", "http"}
				}
				names := c.listTools(t)
				for _, want := range sc.tools {
					if !slices.Contains(names, want) {
						t.Errorf("tools/list lacks %q; it lists %v", want, names)
					}
				}
				sc.exercise(t, c, dir)
				t.Logf("%d Inspector runs in %s", c.runs, time.Since(start).Round(time.Millisecond))
			})
		}
	}
}

// inspector runs the Inspector CLI against one server.
type inspector struct {
	tl        *nodeTools
	dir, home string
	// prefix goes before the method's arguments (an HTTP server's URL and
	// transport), suffix after them (-- and a stdio server's command).
	prefix, suffix []string
	runs           int
}

// run runs the Inspector with the method arguments args.
func (c *inspector) run(t *testing.T, args ...string) runResult {
	t.Helper()
	all := append([]string{"--cli", "--format", "json", "--connect-timeout", "30000"}, c.prefix...)
	all = append(append(all, args...), c.suffix...)
	c.runs++
	return c.tl.run(t, c.dir, c.home, 90*time.Second, c.tl.inspector, all...)
}

// listTools runs tools/list with --strict (which exits 6 on a tool schema
// with an error-severity portability problem) and returns the tool names.
func (c *inspector) listTools(t *testing.T) []string {
	t.Helper()
	r := c.run(t, "--method", "tools/list", "--strict")
	if r.code != 0 {
		t.Fatalf("tools/list: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	var out struct {
		Result struct {
			Tools []struct {
				Name        string         `json:"name"`
				Description string         `json:"description"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("tools/list output is not the JSON expected: %v\n%s", err, r.stdout)
	}
	var names []string
	for _, tool := range out.Result.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema["type"] != "object" {
			t.Errorf("tool %q: description %q, inputSchema %v", tool.Name, tool.Description, tool.InputSchema)
		}
	}
	return names
}

// callResult is a tools/call result as the Inspector prints it.
type callResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

// text is the result's text content.
func (r callResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// callAny calls tool with the Inspector's --tool-arg key=value pairs
// (values that parse as JSON are passed as JSON) and returns the result,
// a tool error included.
func (c *inspector) callAny(t *testing.T, tool string, args ...string) callResult {
	t.Helper()
	cmd := []string{"--method", "tools/call", "--tool-name", tool}
	if len(args) > 0 {
		cmd = append(append(cmd, "--tool-arg"), args...)
	}
	r := c.run(t, cmd...)
	var out struct {
		Result *callResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Result == nil {
		t.Fatalf("tools/call %s %v: exit %d, no result (%v)\nstdout:\n%s\nstderr:\n%s", tool, args, r.code, err, r.stdout, r.stderr)
	}
	// The CLI exits 5 exactly when the tool answered isError.
	if want := map[bool]int{false: 0, true: 5}[out.Result.IsError]; r.code != want {
		t.Errorf("tools/call %s: exit %d with isError %v\nstderr:\n%s", tool, r.code, out.Result.IsError, r.stderr)
	}
	return *out.Result
}

// call is callAny for a call that must succeed.
func (c *inspector) call(t *testing.T, tool string, args ...string) callResult {
	t.Helper()
	res := c.callAny(t, tool, args...)
	if res.IsError {
		t.Fatalf("tools/call %s %v: tool error: %s", tool, args, res.text())
	}
	return res
}

// callErr is callAny for a call that must be a tool error.
func (c *inspector) callErr(t *testing.T, tool string, args ...string) callResult {
	t.Helper()
	res := c.callAny(t, tool, args...)
	if !res.IsError {
		t.Fatalf("tools/call %s %v: want a tool error, got %s", tool, args, res.text())
	}
	return res
}

// structured is the result's structured content, which must be the JSON
// of its text content.
func structured(t *testing.T, tool string, r callResult) map[string]any {
	t.Helper()
	if r.StructuredContent == nil {
		t.Fatalf("%s: no structuredContent; text %s", tool, r.text())
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(r.text()), &fromText); err != nil {
		t.Errorf("%s: text content is not JSON: %v\n%s", tool, err, r.text())
	} else if a, b := mustJSON(fromText), mustJSON(r.StructuredContent); a != b {
		t.Errorf("%s: text content %s\ndiffers from structuredContent %s", tool, a, b)
	}
	return r.StructuredContent
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// find returns every value under key anywhere in v.
func find(v any, key string) []any {
	var out []any
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == key {
				out = append(out, x)
			}
			out = append(out, find(x, key)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, find(x, key)...)
		}
	}
	return out
}

// findString is the one string under key in v (the first, sorted, if
// several differ).
func findString(t *testing.T, v any, key string) string {
	t.Helper()
	var got []string
	for _, x := range find(v, key) {
		if s, ok := x.(string); ok {
			got = append(got, s)
		}
	}
	if len(got) == 0 {
		t.Fatalf("no %q in %s", key, mustJSON(v))
	}
	slices.Sort(got)
	return got[0]
}

// exerciseTracker initializes a tracker, creates two issues, makes one
// block on the other, and checks that ready lists only the unblocked one.
func exerciseTracker(t *testing.T, c *inspector, dir string) {
	res := structured(t, "init", c.call(t, "init"))
	want, _ := filepath.EvalSymlinks(filepath.Join(dir, ".sudocode"))
	if got, _ := filepath.EvalSymlinks(fmt.Sprint(res["path"])); res["success"] != true || got != want {
		t.Errorf("init: %s, want success and path %s", mustJSON(res), want)
	}
	login := structured(t, "create_issue", c.call(t, "create_issue", "title=Ship the login page", "priority=1", `tags=["web","auth"]`))
	if login["title"] != "Ship the login page" || login["priority"] != 1.0 || login["status"] != "open" ||
		mustJSON(login["tags"]) != `["auth","web"]` {
		t.Errorf("create_issue: %s", mustJSON(login))
	}
	loginID, _ := login["id"].(string)
	if !strings.HasPrefix(loginID, "sudocode-") {
		t.Fatalf("create_issue id %q", loginID)
	}
	docs := structured(t, "create_issue", c.call(t, "create_issue", "title=Write the login docs", "priority=0"))
	docsID, _ := docs["id"].(string)
	c.call(t, "link", "from_id="+docsID, "to_id="+loginID, "type=blocks")
	ready := structured(t, "ready", c.call(t, "ready"))
	var ids []string
	for _, x := range find(ready["issues"], "id") {
		ids = append(ids, fmt.Sprint(x))
	}
	if !slices.Equal(ids, []string{loginID}) {
		t.Errorf("ready lists %v, want only %s (%s waits for it): %s", ids, loginID, docsID, mustJSON(ready))
	}
	shown := structured(t, "show_issue", c.call(t, "show_issue", "issue_id="+docsID))
	if shown["title"] != "Write the login docs" {
		t.Errorf("show_issue %s: %s", docsID, mustJSON(shown))
	}
	if e := c.callErr(t, "show_issue", "issue_id=sudocode-zzzz"); !strings.Contains(e.text(), "sudocode-zzzz") {
		t.Errorf("show_issue of an unknown id: %s", e.text())
	}
}

// exerciseRulesets stores a ruleset, reads it back and finds it.
func exerciseRulesets(t *testing.T, c *inspector, dir string) {
	up := c.call(t, "upsert_ruleset", "name=go_style", "description=Go coding rules",
		"markdown=# Go\n\nRun gofmt before every commit.", `tags=["go","style"]`)
	if !strings.Contains(up.text(), "go_style") {
		t.Errorf("upsert_ruleset: %s", up.text())
	}
	got := c.call(t, "get_ruleset", "name=go_style").text()
	for _, want := range []string{"name: go_style", "description: Go coding rules", "go", "style", "# Go\n\nRun gofmt before every commit."} {
		if !strings.Contains(got, want) {
			t.Errorf("get_ruleset lacks %q:\n%s", want, got)
		}
	}
	if got := c.call(t, "search_rulesets", "pattern=*go*").text(); !strings.Contains(got, "go_style") {
		t.Errorf("search_rulesets *go*: %s", got)
	}
	if got := c.call(t, "list_rulesets").text(); !strings.Contains(got, "go_style") {
		t.Errorf("list_rulesets: %s", got)
	}
	if e := c.callErr(t, "get_ruleset", "name=no_such_ruleset"); !strings.Contains(e.text(), "not found") {
		t.Errorf("get_ruleset of a missing ruleset: %s", e.text())
	}
	if _, err := os.Stat(filepath.Join(dir, "store")); err != nil {
		t.Errorf("the store is not in --store: %v", err)
	}
}

// exerciseCoding reads a file (whole and from a line), lists the
// workspace, and is refused a path out of it.
func exerciseCoding(t *testing.T, c *inspector, dir string) {
	read := structured(t, "read_file", c.call(t, "read_file", "path=notes/hello.txt"))
	if read["ok"] != true || read["content"] != "hello\nworld\n" || read["total_lines"] != 2.0 {
		t.Errorf("read_file notes/hello.txt: %s", mustJSON(read))
	}
	read = structured(t, "read_file", c.call(t, "read_file", "path=notes/hello.txt", "start_line=2"))
	if read["content"] != "world\n" {
		t.Errorf("read_file notes/hello.txt from line 2: %s", mustJSON(read))
	}
	list := structured(t, "list_dir", c.call(t, "list_dir", "path=."))
	types := map[string]string{}
	if entries, ok := list["entries"].([]any); ok {
		for _, e := range entries {
			if m, ok := e.(map[string]any); ok {
				types[fmt.Sprint(m["name"])] = fmt.Sprint(m["type"])
			}
		}
	}
	if types["README.md"] != "file" || types["notes"] != "directory" || len(types) != 2 {
		t.Errorf("list_dir .: %s", mustJSON(list))
	}
	denied := structured(t, "read_file", c.callErr(t, "read_file", "path=../outside.txt"))
	if code := findString(t, denied["error"], "code"); code != "PATH_OUTSIDE_WORKSPACE" {
		t.Errorf("read_file ../outside.txt: %s", mustJSON(denied))
	}
}

// exerciseAgent runs a COMMAND task that prints and writes a file, then
// checks its report, its log (a resource) and that the checkout it was
// branched from is untouched. Over stdio the server lives for one call
// only, and stops running agents when its client goes, so create_task is
// sent with a progress token: the call then stays open until the agent
// stops. Over HTTP report_task is polled until the task completes.
func exerciseAgent(t *testing.T, c *inspector, dir string) {
	head := testkit.Git(t, dir, "rev-parse", "HEAD")
	args := []string{"--method", "tools/call", "--tool-name", "create_task"}
	if c.suffix != nil { // stdio
		args = append(args, "--tool-metadata", "progressToken=1")
	}
	args = append(args, "--tool-arg", "tool=COMMAND", "description=Write hi",
		`config={"command":["sh","-c","echo hi; echo hello > hi.txt"]}`)
	r := c.run(t, args...)
	var out struct {
		Result *callResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Result == nil || r.code != 0 || out.Result.IsError {
		t.Fatalf("create_task: exit %d (%v)\nstdout:\n%s\nstderr:\n%s", r.code, err, r.stdout, r.stderr)
	}
	created := structured(t, "create_task", *out.Result)
	id := findString(t, created, "taskId")
	if c.suffix != nil {
		if got := find(created, "status"); !slices.Contains(got, any("completed")) {
			t.Errorf("create_task with a progress token answered before the agent stopped: %s", mustJSON(created))
		}
	}

	// The agent ends on its own; each look is an Inspector run (a new
	// process), so the last report read is the one checked below.
	var report map[string]any
	testkit.Eventually(30*time.Second, func() bool {
		res := structured(t, "report_task", c.call(t, "report_task", "taskId="+id))
		report, _ = res["result"].(map[string]any)
		if report == nil {
			t.Fatalf("report_task %s: no result: %s", id, mustJSON(res))
		}
		st := report["status"]
		return st != "pending" && st != "in_progress"
	})
	if report["id"] != id || report["status"] != "completed" || report["outcome"] != "succeeded" ||
		report["base_sha"] != head || mustJSON(report["files_changed"]) != `["hi.txt"]` {
		t.Errorf("report_task %s: %s\nwant it completed and succeeded from %s, having changed hi.txt", id, mustJSON(report), head)
	}

	logs := c.readResource(t, "task://"+id+"/logs")
	if !strings.Contains(logs, "log: hi\n") || !strings.Contains(logs, "(completed)") {
		t.Errorf("task://%s/logs lacks the agent's output and status:\n%s", id, logs)
	}
	if _, err := os.Stat(filepath.Join(dir, "hi.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the task wrote into the checkout it was branched from (hi.txt: %v)", err)
	}
}

// readResource reads uri through the Inspector and returns its text.
func (c *inspector) readResource(t *testing.T, uri string) string {
	t.Helper()
	r := c.run(t, "--method", "resources/read", "--uri", uri)
	var out struct {
		Result struct {
			Contents []struct {
				URI  string `json:"uri"`
				Text string `json:"text"`
			} `json:"contents"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 || len(out.Result.Contents) == 0 {
		t.Fatalf("resources/read %s: exit %d (%v)\nstdout:\n%s\nstderr:\n%s", uri, r.code, err, r.stdout, r.stderr)
	}
	var b strings.Builder
	for _, c := range out.Result.Contents {
		if c.URI != uri {
			t.Errorf("resources/read %s: content of %s", uri, c.URI)
		}
		b.WriteString(c.Text)
	}
	return b.String()
}
