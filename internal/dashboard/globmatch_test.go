package dashboard_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/dashboard"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// TestGlobMatches: /api/files/matching lists the project's tracked files
// each glob picks, as a ruleset's scope matches them (a glob without '/'
// by base name), at most 50 shown with the count of all; a glob climbing
// out with ../ picks nothing, neither the repository's files outside a
// project in a subdirectory nor files beside the repository; untracked
// files are not candidates; a bad glob is refused.
func TestGlobMatches(t *testing.T) {
	f := newFixture(t)
	files := map[string]string{"app/main.go": "", "app/web/x.js": "", "README.md": "", "top.go": ""}
	for i := range 60 {
		files[fmt.Sprintf("app/gen/f%02d.txt", i)] = ""
	}
	f.commitFiles(t, slices.Collect(maps.Keys(files))...)
	// Beside the repository, and untracked inside it.
	if err := writeFile(filepath.Join(filepath.Dir(f.dir), "beside.go"), "x\n"); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(f.dir, "app", "untracked.go"), "x\n"); err != nil {
		t.Fatal(err)
	}
	ask := func(base string, globs ...string) (int, dashboard.GlobMatches) {
		q := url.Values{"glob": globs}
		var m dashboard.GlobMatches
		code := getJSON(t, http.DefaultClient, base+"/api/files/matching?"+q.Encode(), &m)
		return code, m
	}
	got := func(m dashboard.GlobMatches, i int) string { return strings.Join(m.Matches[i].Files, ",") }

	ts, _ := serveDashboard(t, f, dashboard.Options{})
	code, m := ask(ts.URL, "**/*.go", "*.js", "app/gen/*", "../*.go", "../**", "**/../**", "/**")
	if code != 200 || len(m.Matches) != 7 {
		t.Fatalf("%d %+v", code, m)
	}
	if got(m, 0) != "app/main.go,top.go" || got(m, 1) != "app/web/x.js" {
		t.Errorf("**/*.go picks %s, *.js picks %s", got(m, 0), got(m, 1))
	}
	if g := m.Matches[2]; g.Total != 60 || len(g.Files) != 50 {
		t.Errorf("app/gen/*: %d of %d shown, want 50 of 60", len(g.Files), g.Total)
	}
	for _, g := range m.Matches[3:] {
		if g.Total != 0 || len(g.Files) != 0 {
			t.Errorf("%s climbs out and picks %v", g.Glob, g.Files)
		}
	}
	if m.Partial || m.Scanned < 64 {
		t.Errorf("scanned %d (partial %v)", m.Scanned, m.Partial)
	}

	// A project in a subdirectory of its repository: only its files, by
	// their path from the repository's root, as scopes name them.
	sub := *f
	sub.dir = filepath.Join(f.dir, "app")
	ts2, _ := serveDashboard(t, &sub, dashboard.Options{})
	_, m = ask(ts2.URL, "**/*.go", "../*.go", "**/../top.go", "*.md")
	if got(m, 0) != "app/main.go" || m.Matches[1].Total+m.Matches[2].Total+m.Matches[3].Total != 0 {
		t.Errorf("in app/: %+v", m.Matches)
	}

	many := make([]string, 33) // each glob is matched against every file: a question has at most 32
	for i := range many {
		many[i] = "**/*.go"
	}
	for _, bad := range [][]string{nil, {"["}, {" a"}, {"a\nb"}, many} {
		if code, _ := ask(ts.URL, bad...); code != 400 {
			t.Errorf("glob %q: %d, want 400", bad, code)
		}
	}
}

// TestRulesetScopeWrites: the page sets a ruleset's globs, always and
// targets, and clears them; a bad target or glob is refused.
func TestRulesetScopeWrites(t *testing.T) {
	f := newFixture(t)
	ts, _ := serveDashboard(t, f, dashboard.Options{WriteToken: "w"})
	c := ts.Client()
	auth := map[string]string{"Authorization": "Bearer w"}
	lib := rulesets.Library{Store: f.rules}
	if code, out := send(t, c, "POST", ts.URL+"/api/rulesets", `{"name":"web","description":"Web","markdown":"x","globs":["web/**"],"always":true,"targets":["cursor"]}`, auth); code != 201 {
		t.Fatalf("create: %d %s", code, out)
	}
	r, err := lib.Get(t.Context(), "web")
	if err != nil || !slices.Equal(r.Globs, []string{"web/**"}) || !r.Always || !slices.Equal(r.Targets, []string{"cursor"}) {
		t.Fatalf("created: %+v %v", r.Scope, err)
	}
	if code, out := send(t, c, "PATCH", ts.URL+"/api/rulesets/go_style", `{"globs":["**/*.go","go.mod"],"always":false,"targets":["claude","agents"]}`, auth); code != 200 {
		t.Fatalf("edit: %d %s", code, out)
	}
	r, _ = lib.Get(t.Context(), "go_style")
	if !slices.Equal(r.Globs, []string{"**/*.go", "go.mod"}) || r.Always || !slices.Equal(r.Targets, []string{"claude", "agents"}) {
		t.Errorf("edited: %+v", r.Scope)
	}
	if code, out := send(t, c, "PATCH", ts.URL+"/api/rulesets/go_style", `{"globs":[],"targets":[]}`, auth); code != 200 {
		t.Fatalf("clear: %d %s", code, out)
	}
	if r, _ = lib.Get(t.Context(), "go_style"); !r.Scope.IsZero() {
		t.Errorf("cleared: %+v", r.Scope)
	}
	for _, bad := range []string{`{"targets":["emacs"]}`, `{"globs":["["]}`} {
		if code, out := send(t, c, "PATCH", ts.URL+"/api/rulesets/go_style", bad, auth); code != 400 {
			t.Errorf("%s: %d %s, want 400", bad, code, out)
		}
	}
}

// TestRulesetScopeAgents: the page offers rulesets.Agents as targets.
func TestRulesetScopeAgents(t *testing.T) {
	src, err := os.ReadFile("assets/rulesetscope.js")
	if err != nil {
		t.Fatal(err)
	}
	if want := "AGENTS = ['" + strings.Join(rulesets.Agents, "', '") + "']"; !strings.Contains(string(src), want) {
		t.Errorf("rulesetscope.js lacks %s", want)
	}
}
