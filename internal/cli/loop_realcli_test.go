package cli_test

// From ready issues to a merged main with the real agent CLIs: run_ready
// on `sudocode mcp agent` works a chain of two issues with Claude Code,
// Codex, Gemini CLI and OpenCode against the model simulator. The agent
// reaches the tracker through the MCP server it is given (sudocode mcp),
// adding feedback on the spec and filing the work it discovered; its
// shell, in the sealed box, commits what it wrote and cannot read the
// user's keys, another project or the host's sockets.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/modelsim"
	"github.com/sudocode/sudocode/internal/npmtool"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

func TestRunReadyRealCLIs(t *testing.T) {
	for _, c := range realCLIs {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sim := modelsim.Start(t)
			env := c.setup(t, sim)
			t.Cleanup(func() {
				if t.Failed() {
					for _, r := range sim.Requests() {
						t.Logf("%s %s api=%q tools=%v calls=%v\n%.2000s", r.Method, r.Path, r.API, r.Tools, r.Calls, r.Body)
					}
				}
			})
			realRunReady(t, c, env)
		})
	}
}

// chainWorld is a repository with a spec, two issues in a chain (the
// first blocks the second, both implement the spec and are tagged go) and
// a ruleset library with a go ruleset.
type chainWorld struct {
	repo, rules, spec string
	issues            [2]string
}

// newChainWorld makes the world; the first issue's agent also runs the
// shell command probe and commits its output, seen.txt.
func newChainWorld(t *testing.T, probe string) chainWorld {
	ctx := context.Background()
	w := chainWorld{repo: realCLIRepo(t), rules: t.TempDir()}
	if _, err := store.Init(w.repo, "app"); err != nil {
		t.Fatal(err)
	}
	tr, err := store.Open(ctx, filepath.Join(w.repo, ".sudocode"), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	spec, err := tr.CreateSpec(ctx, store.SpecInput{Title: "Greetings", Design: "# Greetings\n\nEach step writes a greeting file.\n"})
	if err != nil {
		t.Fatal(err)
	}
	w.spec = spec.ID
	for i := range w.issues {
		is, err := tr.CreateIssue(ctx, store.IssueInput{Title: fmt.Sprintf("Step %d", i+1), Tags: []string{"go"}})
		if err != nil {
			t.Fatal(err)
		}
		w.issues[i] = is.ID
		if _, err := tr.Link(ctx, is.ID, spec.ID, "implements"); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if _, err := tr.Link(ctx, is.ID, w.issues[i-1], "blocks"); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The scripts name the ids, so they go in once the ids exist.
	for i, id := range w.issues {
		script := ""
		if i == 0 {
			script = fmt.Sprintf("@sim call add_feedback %q\n@sim call create_issue %q\n@sim call link %q\n@sim shell %q\n",
				fmt.Sprintf(`{"issue_id":%q,"spec_id":%q,"content":"Which greeting, in which language?","text":"greeting file"}`, id, spec.ID),
				`{"title":"Discovered: greet in French too","priority":4}`, // after the chain, which is priority 2
				fmt.Sprintf(`{"from_id":"$LAST_ID","to_id":%q,"type":"discovered-from"}`, id),
				probe+" > seen.txt 2>&1")
		}
		script += fmt.Sprintf("@sim write step%d.txt \"greeting %d\\n\"\n@sim shell \"git add -A && git commit -q -m step%d\"\n@sim text \"Step %d is done.\"\n", i+1, i+1, i+1, i+1)
		desc := "Write the greeting file of this step and commit it.\n" + script
		if _, err := tr.UpdateIssue(ctx, id, store.IssuePatch{Description: &desc}); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Git(t, w.repo, "add", "-A")
	testkit.Git(t, w.repo, "commit", "-qm", "tracker")
	rs, err := sqlitestore.Open(ctx, w.rules)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	if err := rs.Create(ctx, rulesets.Ruleset{Name: "go_style", Description: "Go", Tags: []string{"go"}, Markdown: "Always run gofmt before committing."}, "test"); err != nil {
		t.Fatal(err)
	}
	return w
}

func realRunReady(t *testing.T, c realCLI, env []string) {
	// What the first agent's shell looks at: the user's key (in the CLI's
	// HOME, which in the box holds only the CLI's own files), another
	// project's secrets, the host's sockets.
	var home string
	for _, kv := range env {
		if h, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = h
		}
	}
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("SECRET-KEY\n"), 0o600)
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, ".env"), []byte("SECRET-ENV\n"), 0o600)
	w := newChainWorld(t, fmt.Sprintf("(cat %s/.ssh/id_rsa; cat %s/.env; ls -A /run; ls -A %s)", home, other, home))
	config := map[string]any{}
	for k, v := range c.shellConfig {
		config[k] = v
	}
	if c.name == "gemini" {
		// Gemini CLI ignores a settings file below a directory others may
		// write; the tests' scratch homes are all under /tmp, so the
		// server's cache directory (where the task's settings go) is a
		// private one of the npm cache's.
		cache, err := npmtool.CacheDir()
		if err != nil {
			t.Fatal(err)
		}
		private, err := os.MkdirTemp(cache, "loop-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(private) })
		env = append(env, "XDG_CACHE_HOME="+private)
	}
	if c.name == "claude" {
		// Claude Code defers MCP tools behind its ToolSearch tool, which a
		// scripted model does not use: offer them up front.
		env = append(env, "ENABLE_TOOL_SEARCH=false")
		config["pass_env"] = []string{"ENABLE_TOOL_SEARCH"}
	}

	cmd := exec.Command(sudocodeBin, "mcp", "agent", "--project", w.repo, "--store", w.rules)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "SUDOCODE_") && !strings.HasPrefix(kv, "VALKEY_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	stderr := &testkit.LockedBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(5*time.Minute))
	defer cancel()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "loop-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	defer s.Close()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "run_ready", Arguments: map[string]any{
		"tool": c.tool, "config": config, "limit": 2, "parallel": 1}})
	if err != nil {
		t.Fatalf("run_ready: %v\n%s", err, stderr)
	}
	items, b := runReadyItems(t, res)
	if len(items) != len(w.issues) {
		t.Fatalf("run_ready worked %d issues, want %d: %s", len(items), len(w.issues), b)
	}
	ctx2 := context.Background()
	tr, err := store.Open(ctx2, filepath.Join(w.repo, ".sudocode"), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for i, it := range items {
		if it.IssueID != w.issues[i] || it.Outcome != "merged" || it.Commit == "" {
			t.Fatalf("item %d = %+v, want issue %s merged: %s", i, it, w.issues[i], b)
		}
		d, err := tr.ShowIssue(ctx2, it.IssueID)
		if err != nil || d.Status != "closed" || d.CloseReason == nil || !strings.Contains(*d.CloseReason, it.Commit) {
			t.Errorf("issue %s = %+v, %v; want closed with %s in its reason", it.IssueID, d.Issue, err, it.Commit)
		}
		var rep struct {
			Result struct {
				Prompt string `json:"prompt"`
			} `json:"result"`
		}
		r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "report_task", Arguments: map[string]any{"taskId": it.TaskID}})
		if err != nil {
			t.Fatal(err)
		}
		rb, _ := json.Marshal(r.StructuredContent)
		_ = json.Unmarshal(rb, &rep)
		for _, want := range []string{"# Issue " + it.IssueID + ": Step", "Each step writes a greeting file.", "Always run gofmt before committing."} {
			if !strings.Contains(rep.Result.Prompt, want) {
				t.Errorf("the prompt of %s lacks %q:\n%s", it.IssueID, want, rep.Result.Prompt)
			}
		}
		if got := testkit.Git(t, w.repo, "show", "HEAD:"+fmt.Sprintf("step%d.txt", i+1)); got != fmt.Sprintf("greeting %d", i+1) {
			t.Errorf("main's step%d.txt = %q", i+1, got)
		}
	}
	requireAgentUsedTracker(t, tr, w)
	if seen := testkit.Git(t, w.repo, "show", "HEAD:seen.txt"); !strings.Contains(seen, "id_rsa") || !strings.Contains(seen, ".env") || strings.Contains(seen, "SECRET") || slices.Contains(strings.Split(seen, "\n"), ".ssh") {
		t.Errorf("the agent's shell saw the key, the other project or ~/.ssh, or did not look (cat names what it could not read):\n%s", seen)
	}
	// Once the server stops, nothing of the run is left but warm
	// worktrees for the next one (detached, named warm-…): no task
	// worktree, no task branch.
	_ = s.Close()
	_ = cmd.Wait()
	if wt := taskWorktrees(t, w.repo); len(wt) != 0 {
		t.Errorf("worktrees left: %q", wt)
	}
	if br := testkit.Git(t, w.repo, "branch", "--list", "sudocode/*"); br != "" {
		t.Errorf("task branches left: %s", br)
	}
	if st := testkit.Git(t, w.repo, "status", "--porcelain", "--untracked-files=all"); strings.Contains(st, "step") {
		t.Errorf("the checkout is not clean after the merges: %s", st)
	}
}

// requireAgentUsedTracker checks what the first issue's agent did through
// the tracker's MCP server: one feedback on the spec, and a discovered
// issue linked discovered-from the issue.
func requireAgentUsedTracker(t *testing.T, tr *store.Repo, w chainWorld) {
	t.Helper()
	ctx2 := context.Background()
	fb, err := tr.ListFeedback(ctx2, store.FeedbackFilter{SpecID: w.spec})
	if err != nil || fb.Total != 1 || fb.Feedback[0].IssueID != w.issues[0] {
		t.Errorf("feedback on the spec = %+v, %v; want the agent's one", fb, err)
	}
	iss, _ := tr.ListIssues(ctx2, store.IssueFilter{})
	ib, _ := json.Marshal(iss)
	var discovered string
	for _, is := range iss.Issues {
		if strings.HasPrefix(is.Title, "Discovered") {
			discovered = is.ID
		}
	}
	if d, err := tr.ShowIssue(ctx2, discovered); err != nil || !hasLink(d.Relationships.Outgoing, "discovered-from", w.issues[0]) {
		t.Errorf("discovered issue %s (%s): %+v, %v; want discovered-from %s", discovered, ib, d.Relationships, err, w.issues[0])
	}
}

func hasLink(rels []tracker.Relationship, typ, to string) bool {
	for _, r := range rels {
		if string(r.Type) == typ && r.To == to {
			return true
		}
	}
	return false
}

// taskWorktrees lists the worktrees of repo other than its checkout and
// the warm ones kept for the next task.
func taskWorktrees(t *testing.T, repo string) []string {
	t.Helper()
	var left []string
	for i, line := range strings.Split(testkit.Git(t, repo, "worktree", "list"), "\n") {
		if i > 0 && !strings.Contains(line, string(filepath.Separator)+"warm-") {
			left = append(left, line)
		}
	}
	return left
}

// runReadyItem is an item of run_ready's result.
type runReadyItem struct {
	IssueID string `json:"issue_id"`
	TaskID  string `json:"task_id"`
	Outcome string `json:"outcome"`
	Commit  string `json:"commit"`
	Error   string `json:"error"`
}

// runReadyItems are the items of run_ready's result res, and the result
// as JSON for messages; a tool error ends the test.
func runReadyItems(t *testing.T, res *mcp.CallToolResult) ([]runReadyItem, []byte) {
	t.Helper()
	var out struct {
		Result struct {
			Items []runReadyItem `json:"items"`
		} `json:"result"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || res.IsError {
		t.Fatalf("run_ready: %s", b)
	}
	return out.Result.Items, b
}
