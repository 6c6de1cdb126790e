package mcptracker_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcptracker"
)

// seedFile is the tracker's requirement document, when the workspace has
// it (it is not part of the repository): the quickstart's copy in
// testdata is checked against it.
const seedFile = "/work/shared/seeds/001_984a245a4a0a19cc.txt"

func TestResources(t *testing.T) {
	f := connect(t, mcptracker.Options{}) // resources need no tracker
	ctx := context.Background()
	list, err := f.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"sudocode://quickstart": "Sudocode Quickstart Guide", "sudocode://workflow": "Agent Workflow Guide"}
	if len(list.Resources) != len(want) {
		t.Errorf("resources/list: %d resources, want %d", len(list.Resources), len(want))
	}
	for _, r := range list.Resources {
		if want[r.URI] != r.Title || r.MIMEType != "text/markdown" || r.Description == "" || r.Name == "" {
			t.Errorf("resource %+v, want title %q, mimeType text/markdown, a name and a description", r, want[r.URI])
		}
	}

	read := func(uri string) string {
		t.Helper()
		res, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "text/markdown" {
			t.Fatalf("read %s: %+v", uri, res.Contents)
		}
		return res.Contents[0].Text
	}

	// The quickstart is the seed's text, exactly.
	seedCopy, err := os.ReadFile("testdata/quickstart.seed.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := read("sudocode://quickstart"); got != string(seedCopy) {
		t.Errorf("sudocode://quickstart differs from the seed's text:\n got %q\nwant %q", got, seedCopy)
	}
	if seed, err := os.ReadFile(seedFile); err == nil {
		s := string(seed)
		i := strings.Index(s, "```markdown\n") + len("```markdown\n")
		j := i + strings.Index(s[i:], "\n```")
		if block := s[i:j] + "\n"; block != string(seedCopy) {
			t.Errorf("testdata/quickstart.seed.md is not the seed's quickstart block:\n%q", block)
		}
	}

	// The workflow guide explains which way the links go.
	wf := read("sudocode://workflow")
	for _, s := range []string{
		"# Agent Workflow Guide",
		"`link` creates `from_id → to_id`",
		"| A cannot start until B is done | `link(from_id=A, to_id=B, type=\"blocks\")` |",
		"`link(from_id=E, to_id=T, type=\"parent-child\")`",
		"Done means: an issue is closed; a spec is approved or deprecated.",
		"never block",
		"update_issue(issue_id, status=\"in_progress\"",
		"close_issue",
	} {
		if !strings.Contains(wf, s) {
			t.Errorf("sudocode://workflow does not say %q", s)
		}
	}

	if _, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sudocode://nothing"}); err == nil {
		t.Error("reading an unknown resource succeeded")
	}
}

func TestPrompts(t *testing.T) {
	f := initialised(t, mcptracker.Options{})
	ctx := context.Background()
	list, err := f.cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string][]string{}
	for _, p := range list.Prompts {
		for _, a := range p.Arguments {
			args[p.Name] = append(args[p.Name], a.Name)
		}
	}
	if len(list.Prompts) != 2 || strings.Join(args["review_spec"], ",") != "spec_id" || strings.Join(args["start_next_task"], ",") != "assignee" {
		t.Errorf("prompts/list: %v", args)
	}

	get := func(name string, a map[string]string) (string, error) {
		res, err := f.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: a})
		if err != nil {
			return "", err
		}
		if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
			t.Fatalf("%s: messages %+v", name, res.Messages)
		}
		return res.Messages[0].Content.(*mcp.TextContent).Text, nil
	}

	// start_next_task holds the ready list as the ready tool gives it.
	first := f.ok("create_issue", map[string]any{"title": "First thing", "priority": 0}).str("id")
	second := f.ok("create_issue", map[string]any{"title": "Second thing"}).str("id")
	waiting := f.ok("create_issue", map[string]any{"title": "Waiting thing", "priority": 0}).str("id")
	f.ok("link", map[string]any{"from_id": waiting, "to_id": second, "type": "blocks"})
	text, err := get("start_next_task", map[string]string{"assignee": "alice"})
	if err != nil {
		t.Fatal(err)
	}
	ready := f.call("ready", map[string]any{"limit": 5}).Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, ready) || !strings.Contains(text, first) || strings.Contains(text, waiting) {
		t.Errorf("start_next_task does not hold the ready list %s:\n%s", ready, text)
	}
	if !strings.Contains(text, `assignee "alice"`) || !strings.Contains(text, "update_issue") || !strings.Contains(text, "close_issue") {
		t.Errorf("start_next_task does not say how to claim and finish:\n%s", text)
	}
	if text, _ := get("start_next_task", nil); !strings.Contains(text, "<your name>") {
		t.Errorf("start_next_task without an assignee:\n%s", text)
	}

	// review_spec holds the spec with its content.
	content := "# Cache\n\nEntries expire after an hour.\n"
	spec := f.ok("create_spec", map[string]any{"title": "Cache", "design": content}).str("id")
	text, err = get("review_spec", map[string]string{"spec_id": spec})
	if err != nil {
		t.Fatal(err)
	}
	shown := f.call("show_spec", map[string]any{"spec_id": spec}).Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, shown) || !strings.Contains(text, `"content":"# Cache\n\nEntries expire after an hour.\n"`) {
		t.Errorf("review_spec does not hold the spec %s:\n%s", shown, text)
	}
	if !strings.Contains(text, "add_feedback") {
		t.Errorf("review_spec does not say to add feedback:\n%s", text)
	}

	// An unknown or missing spec is an error.
	if _, err := get("review_spec", map[string]string{"spec_id": "sudocode-spec-zzzz"}); err == nil ||
		!strings.Contains(err.Error(), "spec sudocode-spec-zzzz not found") || !strings.Contains(err.Error(), "list_specs") {
		t.Errorf("review_spec of an unknown spec: %v", err)
	}
	if _, err := get("review_spec", nil); err == nil {
		t.Error("review_spec without spec_id succeeded")
	}
}
