package rulefiles_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets/rulefiles"
)

// TestReadHandwritten: files written by hand, in every format, become one
// ruleset each, named by the snake_case rule, their front matter mapped
// onto the scope; dependencies' files are not read.
func TestReadHandwritten(t *testing.T) {
	found, err := rulefiles.Read(context.Background(), "testdata/handwritten")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		r := f.Ruleset
		got = append(got, strings.Join([]string{f.Source, r.Name, r.Description, strings.Join(r.Globs, "|"), map[bool]string{true: "always"}[r.Always], r.Markdown}, " ; "))
	}
	want := []string{
		".clinerules ; clinerules ; Rules from .clinerules ;  ; always ; Keep functions short.",
		".cursor/rules/always-on.mdc ; always_on ; Rules from .cursor/rules/always-on.mdc ;  ; always ; Answer in English.",
		".cursor/rules/react-components.mdc ; react_components ; React component conventions ; src/components/**/*.tsx|src/**/*.{ts,tsx} ;  ; - One component per file.\n- Props are typed.",
		".github/copilot-instructions.md ; copilot_instructions ; Rules from .github/copilot-instructions.md ;  ; always ; Prefer the standard library.",
		".github/instructions/sql.instructions.md ; sql ; Rules from .github/instructions/sql.instructions.md ; **/*.sql ;  ; Uppercase SQL keywords.",
		".windsurf/rules/deploy.md ; deploy ; How to deploy ;  ;  ; Deploy with `make deploy` from main only.",
		"CLAUDE.md ; claude ; Project notes ;  ; always ; # Project notes\n\nRun `make check` before every commit.\n@docs/architecture.md",
		"pkg/api/AGENTS.md ; pkg_api_agents ; API package ; pkg/api/** ;  ; # API package\n\nHandlers return errors as problem+json.",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("read:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A file saved with Windows line endings reads as the same ruleset: its
// front matter is found and its markdown has no '\r'.
func TestParseCRLF(t *testing.T) {
	got := rulefiles.Parse(".cursor/rules/go-style.mdc", "---\r\ndescription: Go style\r\nglobs: **/*.go\r\nalwaysApply: true\r\n---\r\nUse gofmt.\r\nWrap errors.\r\n")
	if len(got) != 1 {
		t.Fatalf("found %d rulesets", len(got))
	}
	r := got[0].Ruleset
	if r.Description != "Go style" || strings.Join(r.Globs, ",") != "**/*.go" || !r.Always || r.Markdown != "Use gofmt.\nWrap errors." {
		t.Fatalf("CRLF file: %+v", r)
	}
}
