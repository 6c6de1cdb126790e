package rulefiles

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// The actions of an import, per ruleset.
const (
	Created = "created"
	Updated = "updated"
	Skipped = "skipped"
)

// Imported is what an import did with one ruleset it found.
type Imported struct {
	Name   string `json:"name"`
	Source string `json:"source" jsonschema:"The file it was read from, relative to the imported directory"`
	Action string `json:"action" jsonschema:"created, updated or skipped"`
	Reason string `json:"reason,omitempty" jsonschema:"Why it was skipped"`
	// Normalised is what reading changed of the file's bytes (see Parse).
	Normalised []string `json:"normalised,omitempty" jsonschema:"What the import changed of the file's bytes: a byte order mark removed, CRLF line endings made LF"`
}

// ImportReport is an import's result.
type ImportReport struct {
	Rulesets []Imported `json:"rulesets"`
	Created  int        `json:"created"`
	Updated  int        `json:"updated"`
	Skipped  int        `json:"skipped"`
}

// Import reads the agents' rule files at each path into lib: a
// repository's root directory, or one file (placed in the repository by
// its path from the directory wd, else by its base name). A relative path
// is taken from wd, the working directory of the command that asks. A
// ruleset that exists with other content is skipped unless force; one
// that exists unchanged is skipped as such.
func Import(ctx context.Context, lib rulesets.Library, wd string, paths []string, force bool) (ImportReport, error) {
	var found []Found
	for _, p := range paths {
		fs, err := readPath(ctx, wd, p)
		if err != nil {
			return ImportReport{}, err
		}
		found = append(found, fs...)
	}
	return importFound(ctx, lib, found, force), nil
}

// importFound puts found into lib, as Import.
func importFound(ctx context.Context, lib rulesets.Library, found []Found, force bool) ImportReport {
	rep := ImportReport{Rulesets: []Imported{}}
	seen := map[string]Found{}
	for _, f := range found {
		it := Imported{Name: f.Ruleset.Name, Source: f.Source, Action: Skipped, Normalised: f.Normalised}
		if prev, ok := seen[f.Ruleset.Name]; ok {
			if same(prev, f) {
				continue // one ruleset exported to several directories
			}
			it.Reason = "another file in this import, " + prev.Source + ", has a ruleset of this name"
		} else {
			seen[f.Ruleset.Name] = f
			it.Action, it.Reason = importOne(ctx, lib, f, force)
		}
		rep.Rulesets = append(rep.Rulesets, it)
		switch it.Action {
		case Created:
			rep.Created++
		case Updated:
			rep.Updated++
		default:
			rep.Skipped++
		}
	}
	return rep
}

func readPath(ctx context.Context, wd, p string) ([]Found, error) {
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(wd, p)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fault.Wrap(fault.Invalid, err, "cannot import "+p).WithHint("pass a repository's root directory or one rule file")
	}
	if st.IsDir() {
		return Read(ctx, abs)
	}
	dir, err := os.OpenRoot(filepath.Dir(abs))
	if err != nil {
		return nil, fault.Wrap(fault.Invalid, err, "cannot import "+p)
	}
	defer dir.Close()
	text, err := readRuleFile(dir, filepath.ToSlash(filepath.Base(abs)))
	if err != nil {
		return nil, fault.Wrap(fault.Invalid, err, "cannot import "+p)
	}
	rel := filepath.ToSlash(filepath.Base(abs))
	if r, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(r, "..") {
		rel = filepath.ToSlash(r)
	}
	if kindOf(rel) == "" {
		return nil, notRuleFile(p)
	}
	return Parse(rel, text), nil
}

func notRuleFile(p string) error {
	return fault.New(fault.Invalid, "%s is not an agent's rule file", p).
		WithHint("import CLAUDE.md, AGENTS.md, GEMINI.md, .cursor/rules/*.mdc, .github/copilot-instructions.md, .github/instructions/*.instructions.md, .windsurf/rules/*.md, .cursorrules, .windsurfrules or .clinerules, from the repository's root")
}

func same(a, b Found) bool {
	return show(a.Ruleset, a.HasTags) == show(b.Ruleset, b.HasTags)
}

// show is the content of a ruleset import compares: all but times, tags
// only when the file said them.
func show(r rulesets.Ruleset, withTags bool) string {
	tags := r.Tags
	if !withTags || len(tags) == 0 {
		tags = nil
	}
	return fmt.Sprintf("%q %q %q %q %v %q", r.Description, tags, strings.Trim(r.Markdown, "\n"), r.Globs, r.Always, r.Targets)
}

func importOne(ctx context.Context, lib rulesets.Library, f Found, force bool) (action, reason string) {
	r := f.Ruleset
	if strings.TrimSpace(r.Markdown) == "" {
		return Skipped, "no rules in it"
	}
	cur, err := lib.Get(ctx, r.Name)
	exists := err == nil
	if err != nil && !fault.Is(err, fault.NotFound) {
		return Skipped, err.Error()
	}
	if exists {
		if show(cur, f.HasTags) == show(r, f.HasTags) {
			return Skipped, "unchanged"
		}
		if !force {
			return Skipped, "the library's ruleset differs; pass --force (force: true) to overwrite it"
		}
	}
	p := rulesets.Patch{Name: r.Name, Description: &r.Description, Markdown: &r.Markdown,
		Globs: orEmpty(r.Globs), SetGlobs: true, Always: &r.Always, Targets: orEmpty(r.Targets), SetTargets: true}
	if f.HasTags || !exists {
		p.Tags, p.SetTags = orEmpty(r.Tags), true
	}
	if _, err := lib.Upsert(ctx, p); err != nil {
		return Skipped, err.Error()
	}
	if exists {
		return Updated, ""
	}
	return Created, ""
}

func orEmpty(l []string) []string {
	if l == nil {
		return []string{}
	}
	return slices.Clone(l)
}

// FormatImport is an import's report as text: a summary line, then a line
// per ruleset.
func FormatImport(rep ImportReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Imported %d ruleset(s): %d created, %d updated, %d skipped", len(rep.Rulesets), rep.Created, rep.Updated, rep.Skipped)
	for _, it := range rep.Rulesets {
		fmt.Fprintf(&b, "\n%s %s (%s)", it.Action, it.Name, it.Source)
		if it.Reason != "" {
			b.WriteString(": " + it.Reason)
		}
		if len(it.Normalised) > 0 && it.Action != Skipped {
			b.WriteString("; " + strings.Join(it.Normalised, ", "))
		}
	}
	return b.String()
}
