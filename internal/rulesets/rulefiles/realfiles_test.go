package rulefiles_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/rulefiles"
)

// Rule files as people write them, with their tools' dialects and their
// editors' habits.

func parseOne(t *testing.T, rel, content string) rulefiles.Found {
	t.Helper()
	got := rulefiles.Parse(rel, content)
	if len(got) != 1 {
		t.Fatalf("%s: found %d rulesets, want 1", rel, len(got))
	}
	return got[0]
}

// Globs are stored in the library's one dialect: relative to the
// repository root, so Cursor's and Copilot's leading '/' (the root) and
// './' go, and a directory ("src/") is everything under it.
func TestParseNormalisesGlobDialects(t *testing.T) {
	r := parseOne(t, ".cursor/rules/api.mdc", "---\nglobs: /**/*_api.go, ./cmd/*.go, \"/internal/\", docs/**/*.md\n---\nReturn problem+json.\n").Ruleset
	if got := strings.Join(r.Globs, "|"); got != "**/*_api.go|cmd/*.go|internal/**|docs/**/*.md" {
		t.Fatalf("cursor globs = %s", got)
	}
	r = parseOne(t, ".github/instructions/all.instructions.md", "---\napplyTo: \"/**\"\n---\nBe brief.\n").Ruleset
	if !r.Always || len(r.Globs) != 0 {
		t.Fatalf("applyTo /** = always %v, globs %v; want always", r.Always, r.Globs)
	}
	r = parseOne(t, ".windsurf/rules/sql.md", "---\ntrigger: glob\nglobs: /db/**/*.sql\n---\nUppercase keywords.\n").Ruleset
	if got := strings.Join(r.Globs, "|"); got != "db/**/*.sql" {
		t.Fatalf("windsurf globs = %s", got)
	}
}

// A Cursor rule with a root-anchored glob, imported, applies to the files
// it names.
func TestImportedRootGlobApplies(t *testing.T) {
	forEachStore(t, func(t *testing.T, lib rulesets.Library) {
		ctx := context.Background()
		repo := t.TempDir()
		writeTree(t, repo, map[string]string{".cursor/rules/api-handlers.mdc": "---\ndescription: API handlers\nglobs: /**/*_api.go\nalwaysApply: false\n---\nReturn problem+json.\n"})
		if _, err := rulefiles.Import(ctx, lib, repo, []string{repo}, false); err != nil {
			t.Fatal(err)
		}
		applied, err := lib.Resolve(ctx, []string{"internal/user_api.go"}, "cursor")
		if err != nil {
			t.Fatal(err)
		}
		if len(applied) != 1 || applied[0].Name != "api_handlers" || applied[0].Mode != rulesets.ModeGlob {
			t.Fatalf("resolved for internal/user_api.go: %+v", applied)
		}
	})
}

// A byte order mark (Windows editors write one) does not hide the front
// matter, and the import says what it changed of the file's bytes.
func TestParseByteOrderMark(t *testing.T) {
	f := parseOne(t, ".cursor/rules/go.mdc", "\uFEFF---\r\ndescription: Go style\r\nglobs: **/*.go\r\n---\r\nUse gofmt.\r\n")
	r := f.Ruleset
	if r.Description != "Go style" || strings.Join(r.Globs, ",") != "**/*.go" || r.Markdown != "Use gofmt." {
		t.Fatalf("file with a BOM: %+v", r)
	}
	if got := strings.Join(f.Normalised, "; "); got != "byte order mark removed; CRLF line endings made LF" {
		t.Fatalf("normalised = %q", got)
	}
	if f := parseOne(t, "CLAUDE.md", "# Notes\n\nRun make.\n"); len(f.Normalised) != 0 {
		t.Fatalf("a plain file reported as normalised: %q", f.Normalised)
	}
}

// The import's report says what it changed of a file's bytes.
func TestImportReportsNormalisation(t *testing.T) {
	forEachStore(t, func(t *testing.T, lib rulesets.Library) {
		repo := t.TempDir()
		writeTree(t, repo, map[string]string{"AGENTS.md": "\uFEFF# Notes\r\n\r\nRun make.\r\n", "CLAUDE.md": "Run make.\n"})
		rep, err := rulefiles.Import(context.Background(), lib, repo, []string{repo}, false)
		if err != nil {
			t.Fatal(err)
		}
		want := "Imported 2 ruleset(s): 2 created, 0 updated, 0 skipped\n" +
			"created agents (AGENTS.md); byte order mark removed, CRLF line endings made LF\n" +
			"created claude (CLAUDE.md)"
		if got := rulefiles.FormatImport(rep); got != want {
			t.Fatalf("report:\n%s\nwant:\n%s", got, want)
		}
		if r, _ := lib.Get(context.Background(), "agents"); r.Markdown != "# Notes\n\nRun make." {
			t.Fatalf("markdown %q", r.Markdown)
		}
	})
}

// Files whose format has no front matter keep a "---" block as the text
// it is to their agent, instead of dropping it.
func TestParseKeepsFrontMatterWhereTheFormatHasNone(t *testing.T) {
	for _, rel := range []string{".github/copilot-instructions.md", ".clinerules", ".cursorrules", "AGENTS.md"} {
		content := "---\napplyTo: \"**\"\nowner: platform\n---\nPrefer the standard library.\n"
		r := parseOne(t, rel, content).Ruleset
		if r.Markdown != strings.TrimSuffix(content, "\n") || !r.Always {
			t.Errorf("%s: markdown %q, always %v; want the whole text, always", rel, r.Markdown, r.Always)
		}
	}
}

// AGENTS.md, CLAUDE.md and GEMINI.md are read in any directory, hidden
// ones included; a repository's own metadata (.git) and dependencies are
// not searched. .claude/CLAUDE.md is Claude Code's project file, as the
// root's CLAUDE.md is: it applies everywhere.
func TestReadHiddenDirectories(t *testing.T) {
	repo := t.TempDir()
	writeTree(t, repo, map[string]string{
		".devcontainer/AGENTS.md":  "Build in the container.\n",
		".claude/CLAUDE.md":        "Claude Code reads this one for the whole project.\n",
		".git/AGENTS.md":           "not a rule file\n",
		".venv/lib/AGENTS.md":      "a dependency's\n",
		"node_modules/x/CLAUDE.md": "a dependency's\n",
	})
	found, err := rulefiles.Read(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		scope := strings.Join(f.Ruleset.Globs, ",")
		if f.Ruleset.Always {
			scope = "always"
		}
		got = append(got, f.Source+" "+f.Ruleset.Name+" "+scope)
	}
	if want := []string{".claude/CLAUDE.md claude_claude always", ".devcontainer/AGENTS.md devcontainer_agents .devcontainer/**"}; !slices.Equal(got, want) {
		t.Fatalf("read %q, want %q", got, want)
	}
}

// Export writes a ruleset back to the file it was imported from, whatever
// its name, instead of a second copy beside it under the name export
// would choose; a hand-written file whose rules the library holds as they
// are is taken over, one with other rules is left alone.
func TestExportUpdatesTheFileARulesetCameFrom(t *testing.T) {
	forEachStore(t, func(t *testing.T, lib rulesets.Library) {
		ctx := context.Background()
		repo := t.TempDir()
		hand := map[string]string{
			".cursor/rules/01_python_code.mdc":               "---\ndescription: Python code\nglobs: **/*.py\nalwaysApply: false\n---\nUse type hints.\n",
			".windsurf/rules/Deploy Steps.md":                "---\ntrigger: model_decision\ndescription: Deploying\n---\nDeploy from main.\n",
			".github/instructions/API_rules.instructions.md": "---\napplyTo: \"api/**/*.go\"\n---\nReturn problem+json.\n",
		}
		writeTree(t, repo, hand)
		if rep, err := rulefiles.Import(ctx, lib, repo, []string{repo}, false); err != nil || rep.Created != 3 {
			t.Fatalf("import: %v\n%s", err, rulefiles.FormatImport(rep))
		}
		agents := []string{"cursor", "windsurf", "copilot"}
		rep, err := rulefiles.Export(ctx, lib, repo, agents, false, false)
		if err != nil {
			t.Fatal(err)
		}
		got := rulefiles.FormatExport(rep)
		for p := range hand {
			if !strings.Contains(got, "\nupdated "+p+"\n") && !strings.HasSuffix(got, "\nupdated "+p) {
				t.Errorf("export did not update %s:\n%s", p, got)
			}
		}
		tree := readTree(t, repo)
		for _, copy := range []string{".cursor/rules/01-python-code.mdc", ".windsurf/rules/deploy-steps.md", ".github/instructions/api-rules.instructions.md"} {
			if _, ok := tree[copy]; ok {
				t.Errorf("export wrote a second copy, %s:\n%s", copy, got)
			}
		}
		for p, rule := range map[string]string{".cursor/rules/01_python_code.mdc": "Use type hints.", ".windsurf/rules/Deploy Steps.md": "Deploy from main.",
			".github/instructions/API_rules.instructions.md": "Return problem+json."} {
			if !strings.Contains(tree[p], rule) {
				t.Errorf("%s lost its rules:\n%s", p, tree[p])
			}
		}
		// The next change goes to the same files, and a check agrees.
		md := "Use type hints everywhere."
		if _, err := lib.Upsert(ctx, rulesets.Patch{Name: "01_python_code", Markdown: &md}); err != nil {
			t.Fatal(err)
		}
		rep, _ = rulefiles.Export(ctx, lib, repo, agents, false, false)
		if got := rulefiles.FormatExport(rep); !strings.Contains(got, "\nupdated .cursor/rules/01_python_code.mdc\n") || strings.Contains(got, "\ncreated") {
			t.Fatalf("second export:\n%s", got)
		}
		if rep, _ = rulefiles.Export(ctx, lib, repo, agents, true, false); rep.Differs() {
			t.Fatalf("check after export:\n%s", rulefiles.FormatExport(rep))
		}
		// A file written by hand with rules the library does not hold
		// stays as it is, and no copy is written beside it.
		other := filepath.Join(repo, ".cursor/rules/02_Style.mdc")
		os.WriteFile(other, []byte("Keep lines short.\n"), 0o644)
		if err := lib.Create(ctx, rulesets.Ruleset{Name: "02_style", Description: "Style", Markdown: "Wrap at 100."}); err != nil {
			t.Fatal(err)
		}
		rep, _ = rulefiles.Export(ctx, lib, repo, []string{"cursor"}, false, false)
		if got := rulefiles.FormatExport(rep); got != "Exported to cursor: 0 created, 0 updated, 0 removed, 3 unchanged, 1 not overwritten\n"+
			"not overwritten .cursor/rules/02_Style.mdc: not generated by sudocode; import it first (sudocode rulesets import), or pass --force to overwrite it" {
			t.Fatalf("export beside a hand-written file:\n%s", got)
		}
	})
}

// A repository where an earlier export wrote the second copy already
// (01-python-code.mdc beside 01_python_code.mdc): export writes the
// ruleset to its own file and removes the copy it generated.
func TestExportRemovesTheSecondCopy(t *testing.T) {
	forEachStore(t, func(t *testing.T, lib rulesets.Library) {
		ctx := context.Background()
		repo := t.TempDir()
		own := ".cursor/rules/01_python_code.mdc"
		writeTree(t, repo, map[string]string{own: "---\ndescription: Python code\nglobs: **/*.py\nalwaysApply: false\n---\nUse type hints.\n"})
		if _, err := rulefiles.Import(ctx, lib, repo, []string{repo}, false); err != nil {
			t.Fatal(err)
		}
		rs, err := lib.All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		writeTree(t, repo, rulefiles.Render(rs, "cursor")) // the copy an earlier export wrote
		rep, err := rulefiles.Export(ctx, lib, repo, []string{"cursor"}, false, false)
		if err != nil {
			t.Fatal(err)
		}
		want := "Exported to cursor: 0 created, 1 updated, 1 removed, 0 unchanged, 0 not overwritten\n" +
			"removed .cursor/rules/01-python-code.mdc\nupdated .cursor/rules/01_python_code.mdc"
		if got := rulefiles.FormatExport(rep); got != want {
			t.Fatalf("export:\n%s\nwant:\n%s", got, want)
		}
		if tree := readTree(t, repo); len(tree) != 1 || !strings.Contains(tree[own], "Use type hints.") {
			t.Fatalf("files after the export: %v", tree)
		}
	})
}
