package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// testResolve: the rulesets that apply to a path for an agent, general
// first (always, then globs from the least specific, then those left to
// the agent), each with where it came from and its size in tokens.
func testResolve(t *testing.T, s rulesets.Store) {
	ctx := context.Background()
	lib := rulesets.Library{Store: s}
	yes := true
	for _, p := range []rulesets.Patch{
		{Name: "team", Description: str("Team"), Markdown: str("Be kind."), Always: &yes},
		{Name: "go_style", Description: str("Go"), Markdown: str("Use gofmt, always and everywhere."), Globs: []string{"*.go"}, SetGlobs: true},
		{Name: "api", Description: str("API"), Markdown: str("problem+json"), Globs: []string{"pkg/api/**"}, SetGlobs: true},
		{Name: "handlers", Description: str("Handlers"), Markdown: str("h"), Globs: []string{"pkg/api/handlers/**"}, SetGlobs: true},
		{Name: "web", Description: str("Web"), Markdown: str("w"), Globs: []string{"web/**"}, SetGlobs: true},
		{Name: "release", Description: str("Releases"), Markdown: str("r")},
		{Name: "claude_only", Description: str("Claude"), Markdown: str("c"), Always: &yes, Targets: []string{"claude"}, SetTargets: true},
		{Name: "agents_md", Description: str("AGENTS.md readers"), Markdown: str("a"), Always: &yes, Targets: []string{"agents"}, SetTargets: true},
	} {
		mustUpsert(t, s, p, t0)
	}
	resolve := func(agent string, paths ...string) string {
		t.Helper()
		got, err := lib.Resolve(ctx, paths, agent)
		if err != nil {
			t.Fatalf("Resolve(%v, %s): %v", paths, agent, err)
		}
		var lines []string
		for _, a := range got {
			lines = append(lines, fmt.Sprintf("%s %s [%s] %d", a.Name, a.Mode, a.Origin, a.Tokens))
		}
		return strings.Join(lines, "\n")
	}
	want := strings.Join([]string{
		"claude_only always [always] 1",
		"team always [always] 2",
		"go_style glob [glob *.go matches pkg/api/handlers/user.go] 9",
		"api glob [glob pkg/api/** matches pkg/api/handlers/user.go] 3",
		"handlers glob [glob pkg/api/handlers/** matches pkg/api/handlers/user.go] 1",
		"release requested [everywhere, when relevant] 1",
	}, "\n")
	if got := resolve("claude", "./pkg/api/handlers/user.go"); got != want {
		t.Fatalf("claude, a handler:\n%s\nwant:\n%s", got, want)
	}
	// Codex reads AGENTS.md: the rulesets for agents, not Claude's.
	if got := resolve("codex", "web/app.ts"); got != "agents_md always [always] 1\nteam always [always] 2\nweb glob [glob web/** matches web/app.ts] 1\nrelease requested [everywhere, when relevant] 1" {
		t.Fatalf("codex, a web file:\n%s", got)
	}
	if got := resolve(""); got != "agents_md always [always] 1\nclaude_only always [always] 1\nteam always [always] 2\nrelease requested [everywhere, when relevant] 1" {
		t.Fatalf("any agent, no path:\n%s", got)
	}
	if _, err := lib.Resolve(ctx, []string{"../etc/passwd"}, "claude"); err == nil || err.Error() != "invalid path '../etc/passwd': must be relative to the repository root" {
		t.Fatalf("a path outside the repository: %v", err)
	}
	if _, err := lib.Resolve(ctx, nil, "vim"); err == nil || !strings.HasPrefix(err.Error(), "unknown agent 'vim': must be one of agents, amp, claude, codex") {
		t.Fatalf("an unknown agent: %v", err)
	}
}
