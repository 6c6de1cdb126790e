package rulefiles_test

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/rulefiles"
)

var update = flag.Bool("update", false, "rewrite testdata/roundtrip from the sample library")

// sample is a library with every kind of scope: always, directory globs,
// file globs, none, several directories, targets, tags, a description that
// needs quoting in YAML.
var sample = []rulesets.Ruleset{
	{Name: "team_basics", Description: "How the team works", Tags: []string{"team"}, Markdown: "# Team basics\n\n- Small commits.\n- Tests first.",
		Scope: rulesets.Scope{Always: true}},
	{Name: "api_rules", Description: "API handlers: errors and status codes", Tags: []string{"api", "http"},
		Markdown: "# API\n\nReturn problem+json errors.", Scope: rulesets.Scope{Globs: []string{"pkg/api/**"}}},
	{Name: "go_style", Description: "Go style", Tags: []string{"go", "style guide"}, Markdown: "# Go style\n\n```go\nif err != nil {\n\treturn err\n}\n```",
		Scope: rulesets.Scope{Globs: []string{"**/*.go", "**/*.{tmpl,gohtml}"}}},
	{Name: "migrations", Description: "Database migrations", Markdown: "Never edit an applied migration.",
		Scope: rulesets.Scope{Globs: []string{"db/migrations/**", "tools/migrate/**"}}},
	{Name: "release_checklist", Description: "*Ask* for it before a release", Tags: []string{}, Markdown: "1. Changelog\n2. Tag"},
	{Name: "claude_only", Description: "Only for Claude", Markdown: "Use the Task tool for long searches.",
		Scope: rulesets.Scope{Always: true, Targets: []string{"claude"}}},
}

// TestRoundTrip: per agent, the files export writes of the sample library
// are pinned in testdata/roundtrip/AGENT, importing them gives back the
// library (every field an agent's export carries), and exporting what was
// imported gives back the same bytes, front matter included.
func TestRoundTrip(t *testing.T) {
	for _, agent := range rulesets.Agents {
		t.Run(agent, func(t *testing.T) {
			dir := filepath.Join("testdata", "roundtrip", agent)
			files := rulefiles.Render(sample, agent)
			if *update {
				os.RemoveAll(dir)
				writeTree(t, dir, files)
			}
			onDisk := readTree(t, dir)
			if diff := compareTrees(onDisk, files); diff != "" {
				t.Fatalf("export differs from the golden files (-update to rewrite them):\n%s", diff)
			}
			found, err := rulefiles.Read(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			imported := merge(t, found)
			var want []string
			for _, r := range sample {
				if len(r.Targets) == 0 || slices.Contains(r.Targets, agent) {
					want = append(want, show(r))
				}
			}
			var got []string
			for _, r := range imported {
				got = append(got, show(r))
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("import of the export:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if diff := compareTrees(onDisk, rulefiles.Render(imported, agent)); diff != "" {
				t.Fatalf("import then export is not the same files:\n%s", diff)
			}
		})
	}
}

// merge is the rulesets found, one per name (a ruleset in several
// directories' files is found once in each).
func merge(t *testing.T, found []rulefiles.Found) []rulesets.Ruleset {
	byName := map[string]rulesets.Ruleset{}
	for _, f := range found {
		if prev, ok := byName[f.Ruleset.Name]; ok && show(prev) != show(f.Ruleset) {
			t.Fatalf("%s found twice, differently:\n%s\n%s", f.Ruleset.Name, show(prev), show(f.Ruleset))
		}
		byName[f.Ruleset.Name] = f.Ruleset
	}
	var out []rulesets.Ruleset
	for _, r := range byName {
		out = append(out, r)
	}
	return out
}

func show(r rulesets.Ruleset) string {
	tags := r.Tags
	if len(tags) == 0 {
		tags = nil
	}
	return fmt.Sprintf("%s %q %q %q %q %v %q", r.Name, r.Description, tags, strings.Trim(r.Markdown, "\n"), r.Globs, r.Always, r.Targets)
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readTree(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func compareTrees(got, want map[string]string) string {
	var diffs []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			diffs = append(diffs, "missing "+p)
		} else if g != w {
			diffs = append(diffs, fmt.Sprintf("%s:\n--- got\n%s\n--- want\n%s", p, g, w))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, "unexpected "+p)
		}
	}
	slices.Sort(diffs)
	return strings.Join(diffs, "\n")
}
