package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// fixture is a project in a temporary git repository with a tracker that
// has a blocking link, a spec with valid and stale feedback anchors, and a
// ruleset library.
type fixture struct {
	dir      string
	repo     *store.Repo // changes the tracker as the CLI would
	rules    rulesets.Store
	open     string // an open issue nothing blocks (ready)
	waiting  string // an open issue that open blocks
	progress string // an in_progress issue
	spec     string
	fbValid  string
	fbStale  string
}

const specBody = `# Login flow

## Tokens

Access tokens live 15 minutes.
Refresh tokens rotate on every use.

## Errors

- A locked account answers 423.
`

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	// A real path, as the cache and task store paths must be (macOS
	// /var → /private/var).
	dir := testkit.Repo(t)
	if _, err := store.Init(dir, "demo"); err != nil {
		t.Fatal(err)
	}
	repo, err := store.Open(ctx, filepath.Join(dir, store.DirName), "tester")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	f := &fixture{dir: dir, repo: repo}
	p1 := 1
	a, err := repo.CreateIssue(ctx, store.IssueInput{Title: "Design the token store", Priority: &p1, Description: "Keep **tokens** safe"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := repo.CreateIssue(ctx, store.IssueInput{Title: "Implement login", Type: "feature"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.CreateIssue(ctx, store.IssueInput{Title: "Write <script>alert(1)</script> docs"})
	if err != nil {
		t.Fatal(err)
	}
	inProgress := "in_progress"
	if _, err := repo.UpdateIssue(ctx, c.ID, store.IssuePatch{Status: &inProgress}); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Link(ctx, b.ID, a.ID, "blocks"); err != nil {
		t.Fatal(err)
	}
	f.open, f.waiting, f.progress = a.ID, b.ID, c.ID
	sp, err := repo.CreateSpec(ctx, store.SpecInput{Title: "Login flow", Design: specBody})
	if err != nil {
		t.Fatal(err)
	}
	f.spec = sp.ID
	text1, text2 := "Refresh tokens rotate", "A locked account"
	fb1, err := repo.AddFeedback(ctx, store.FeedbackInput{IssueID: a.ID, SpecID: sp.ID, Text: &text1, Type: "question", Content: "Which **lifetime**?"})
	if err != nil {
		t.Fatal(err)
	}
	fb2, err := repo.AddFeedback(ctx, store.FeedbackInput{IssueID: a.ID, SpecID: sp.ID, Text: &text2, Type: "suggestion", Content: "How long is the lock?"})
	if err != nil {
		t.Fatal(err)
	}
	f.fbValid, f.fbStale = fb1.ID, fb2.ID
	// Rewrite the spec: the first anchor moves down a line, the second's
	// text is gone (stale).
	changed := strings.Replace(strings.Replace(specBody, "- A locked account answers 423.", "- Accounts are never locked.", 1),
		"## Tokens\n", "## Tokens\n\nTokens are JWTs.\n", 1)
	if _, err := repo.UpdateSpec(ctx, sp.ID, store.SpecPatch{Content: &changed}); err != nil {
		t.Fatal(err)
	}
	rs, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "rulesets"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	f.rules = rs
	lib := rulesets.Library{Store: rs}
	desc, md := "How we write Go", "# Go style\n\n- Keep functions **small**.\n- Wrap errors with `%w`.\n"
	if _, err := lib.Upsert(ctx, rulesets.Patch{Name: "go_style", Description: &desc, Markdown: &md, Tags: []string{"go"}, SetTags: true}); err != nil {
		t.Fatal(err)
	}
	return f
}

// openTasks opens an orchestrator on the fixture's repository, closed with the test.
func (f *fixture) openTasks(t testing.TB) *orchestrator.Orchestrator {
	t.Helper()
	st, err := orchestrator.OpenStore(context.Background(), filepath.Join(f.dir, ".git", "sudocode"))
	if err != nil {
		t.Fatal(err)
	}
	o := orchestrator.New(st, commandOnly, orchestrator.Options{Repo: f.dir, Actor: "tester", Grace: time.Second, Worktrees: t.TempDir()})
	t.Cleanup(func() {
		o.Close()
		st.Close()
	})
	return o
}

// commandOnly is a lookup with the real COMMAND adapter only.
func commandOnly(kind string) (agent.Adapter, bool) {
	if strings.EqualFold(kind, agent.ToolCommand) {
		return agent.Command{}, true
	}
	return nil, false
}

// getJSON GETs url and decodes the JSON answer into v; it returns the status.
func getJSON(t testing.TB, client *http.Client, url string, v any) int {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %d %s: %v", url, resp.StatusCode, body, err)
		}
	}
	return resp.StatusCode
}

// sseEvent is one Server-Sent Event.
type sseEvent struct {
	ID, Name, Data string
}

// readEvents reads a stream's events into a channel until it ends.
func readEvents(body io.Reader) <-chan sseEvent {
	ch := make(chan sseEvent, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if e.Name != "" || e.Data != "" {
					ch <- e
				}
				e = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				e.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				e.Name = line[7:]
			case strings.HasPrefix(line, "data: "):
				e.Data = line[6:]
			}
		}
	}()
	return ch
}

// waitEvent waits for an event that match accepts.
func waitEvent(t testing.TB, ch <-chan sseEvent, d time.Duration, match func(sseEvent) bool) sseEvent {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatal("the event stream ended")
			}
			if match(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("no matching event within %v", d)
		}
	}
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o644) }

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// commitFiles writes each of paths (slash-separated, "x\n" in each) in
// the fixture's repository and commits them.
func (f *fixture) commitFiles(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(f.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeFile(full, "x\n"); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Git(t, f.dir, "add", "-A")
	testkit.Git(t, f.dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "files")
}
