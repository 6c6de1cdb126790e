package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// claudeCosting stands in for `claude`: each run reports $0.25 and 10
// tokens in, 5 out; its first run then fails (exit 1), the next succeed.
const claudeCosting = `#!/bin/sh
cat > /dev/null
n=$(ls "$CLAUDE_CONFIG_DIR" | wc -l)
touch "$CLAUDE_CONFIG_DIR/run$n"
echo '{"type":"system","subtype":"init","session_id":"s'$n'"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"Run '$n'.","total_cost_usd":0.25,"usage":{"input_tokens":10,"output_tokens":5},"session_id":"s'$n'"}'
[ "$n" != 0 ]
`

// usageOf is the "usage" object of a JSON answer, reached through path.
func usageOf(t *testing.T, raw string, path ...string) map[string]any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	m, _ := v.(map[string]any)
	return m
}

// An issue's usage adds up every attempt, the failed one too: issue show
// gives it in words and in "usage", show_issue the same; stats gives the
// project's total and the issues that cost the most; a task's report
// gives its issue's beside its own. An issue whose tasks reported no cost
// says so rather than $0.
func TestIssueUsageAddsUpEveryAttempt(t *testing.T) {
	dir, env, first, second := taskRepo(t)
	bin, conf := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(claudeCosting), 0o755); err != nil {
		t.Fatal(err)
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "CLAUDE_CONFIG_DIR="+conf)
	run := func(args ...string) result { return runMain(t, dir, env, "", args...) }

	if r := run("task", "start", first, "--agent", "claude"); r.code != 1 || !strings.Contains(r.stdout, "failed") {
		t.Fatalf("first attempt: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	run("issue", "update", first, "--status", "open")
	r := run("task", "start", first, "--agent", "claude")
	if r.code != 0 || !strings.Contains(r.stdout, "issue:   "+first+" (its 2 tasks, 20 tokens in, 10 out, $0.5000)") {
		t.Fatalf("second attempt: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	want := map[string]any{"tasks": 2.0, "priced": 2.0, "cost_usd": 0.5,
		"tokens": map[string]any{"input": 20.0, "output": 10.0, "cache_read": 0.0, "cache_write": 0.0}}
	shown := run("issue", "show", first, "--json").stdout
	if got := usageOf(t, shown, "usage"); !reflect.DeepEqual(got, want) {
		t.Errorf("issue show --json's usage = %v, want %v", got, want)
	}
	if text := run("issue", "show", first).stdout; !strings.Contains(text, "usage: 2 tasks, 20 tokens in, 10 out, $0.5000\n") {
		t.Errorf("issue show:\n%s", text)
	}
	s, _ := connectStdio(t, append(env, "SUDOCODE_WORKING_DIR="+dir), sudocodeBin, "mcp")
	if text, isErr := callText(t, s, "show_issue", map[string]any{"issue_id": first}); isErr || !jsonSame(text, shown) {
		t.Errorf("show_issue differs from issue show --json:\n%s\n%s", text, shown)
	}

	if r := run("task", "start", second, "--agent", "command", "--command", "true"); r.code != 0 {
		t.Fatalf("command task: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if text := run("issue", "show", second).stdout; !strings.Contains(text, "usage: 1 task, cost unknown\n") {
		t.Errorf("issue show of a task without figures:\n%s", text)
	}
	stats := run("stats", "--json").stdout
	total := usageOf(t, stats, "usage", "total")
	if total["tasks"] != 3.0 || total["priced"] != 2.0 || total["cost_usd"] != 0.5 {
		t.Errorf("stats' total %v", total)
	}
	var st struct {
		Usage struct {
			TopIssues []struct {
				IssueID string `json:"issue_id"`
			} `json:"top_issues"`
		}
	}
	_ = json.Unmarshal([]byte(stats), &st)
	if len(st.Usage.TopIssues) != 2 || st.Usage.TopIssues[0].IssueID != first || st.Usage.TopIssues[1].IssueID != second {
		t.Errorf("stats' top issues %+v", st.Usage.TopIssues)
	}
	if text, isErr := callText(t, s, "stats", map[string]any{}); isErr || !jsonSame(text, stats) {
		t.Errorf("the stats tool differs from stats --json:\n%s\n%s", text, stats)
	}
	if text := run("stats").stdout; !strings.Contains(text, "3 tasks, 20 tokens in, 10 out, $0.5000 (2 of them reported a cost)") {
		t.Errorf("stats:\n%s", text)
	}
}
