package rulefiles

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// Found is a ruleset read from an agent's file.
type Found struct {
	Ruleset rulesets.Ruleset
	// HasTags: the file said the tags (a generated one does); a file
	// written by hand has none to say, and import leaves tags as they are.
	HasTags bool
	Source  string // the file, relative to the repository root, with '/'
	// Normalised says what reading changed of the file's bytes besides
	// blank lines at the ends of its text (a byte order mark, CRLF line
	// endings), for the import's report.
	Normalised []string
}

// mainFiles are read in every directory: each applies to its subtree.
var mainFiles = []string{"CLAUDE.md", "AGENTS.md", "GEMINI.md"}

// skipDirs are never searched: dependencies, and version control's own
// data. Every other directory is, hidden ones included (a rule file in
// .devcontainer applies there as anywhere).
var skipDirs = map[string]bool{"node_modules": true, "vendor": true, ".venv": true, ".git": true, ".hg": true, ".svn": true, ".jj": true}

// Read finds every agent's rule file under root and returns the rulesets
// in them, in path order. A cancelled ctx stops the search (a root such as
// "/" is a long walk).
func Read(ctx context.Context, root string) ([]Found, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fault.Wrap(fault.Invalid, err, "cannot read the rule files under "+root)
	}
	defer r.Close()
	return readRoot(ctx, r, root)
}

// readRoot is Read of the directory r, called name in errors.
func readRoot(ctx context.Context, r *os.Root, name string) ([]Found, error) {
	var rels []string
	if err := walk(ctx, r, func(rel string) error { rels = append(rels, rel); return nil }); err != nil {
		return nil, fault.Wrap(fault.Invalid, err, "cannot read the rule files under "+name)
	}
	slices.Sort(rels)
	var out []Found
	for _, rel := range rels {
		text, err := readRuleFile(r, rel)
		if err != nil {
			return nil, fault.Wrap(fault.Invalid, err, "cannot read "+rel)
		}
		out = append(out, Parse(rel, text)...)
	}
	return out, nil
}

// walk calls fn with the path from root of every agent's rule file under
// it, skipping skipDirs.
// It lists the directories through root, so it never leaves it.
func walk(ctx context.Context, root *os.Root, fn func(rel string) error) error {
	return fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if rel != "." && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if kindOf(rel) == "" {
			return nil
		}
		return fn(rel)
	})
}

// kindOf says which agent's file rel is, "" for none.
func kindOf(rel string) string {
	dir, base := path.Split(rel)
	switch {
	case slices.Contains(mainFiles, base):
		return "main"
	case dir == ".cursor/rules/" && strings.HasSuffix(base, ".mdc"):
		return "cursor"
	case rel == ".github/copilot-instructions.md":
		return "copilot"
	case dir == ".github/instructions/" && strings.HasSuffix(base, ".instructions.md"):
		return "copilot-path"
	case dir == ".windsurf/rules/" && strings.HasSuffix(base, ".md"):
		return "windsurf"
	case rel == ".cursorrules" || rel == ".windsurfrules" || rel == ".clinerules":
		return "single"
	case dir == ".clinerules/" && strings.HasSuffix(base, ".md"):
		return "single"
	}
	return ""
}

// Parse reads the rulesets of one file, rel being its path from the
// repository root. A generated file gives back what export wrote; a file
// written by hand is one ruleset named after its path, scoped by where it
// is and by its front matter.
//
// The markdown is the file's text as UTF-8 without a byte order mark,
// with LF line endings and without blank lines at its start and end;
// Found.Normalised says when the first two changed the file's bytes.
func Parse(rel, content string) []Found {
	var normalised []string
	if rest, ok := strings.CutPrefix(content, "\uFEFF"); ok { // Windows editors write one
		content, normalised = rest, append(normalised, "byte order mark removed")
	}
	if strings.Contains(content, "\r\n") { // a file saved on Windows
		content, normalised = strings.ReplaceAll(content, "\r\n", "\n"), append(normalised, "CRLF line endings made LF")
	}
	_, content = inspect(content)
	keys, body := map[string]string{}, content
	if hasFrontMatter(kindOf(rel)) {
		keys, body = splitFrontMatter(content)
	}
	var out []Found
	lines := strings.SplitAfter(body, "\n")
	var cur *Found
	var text strings.Builder
	flush := func() {
		md := strings.Trim(text.String(), "\n")
		text.Reset()
		if cur == nil {
			if strings.TrimSpace(md) != "" {
				f := byLocation(rel, keys, md)
				f.Normalised = normalised
				out = append(out, f)
			}
			return
		}
		cur.Ruleset.Markdown = md
		cur.Normalised = normalised
		out = append(out, *cur)
	}
	for _, line := range lines {
		if m, ok := parseSection(strings.TrimRight(line, "\n")); ok {
			flush()
			cur = &Found{HasTags: true, Source: rel, Ruleset: rulesets.Ruleset{Name: m.Name, Description: m.Description, Tags: m.Tags,
				Scope: rulesets.Scope{Globs: m.Globs, Always: m.Always, Targets: m.Targets}}}
			if cur.Ruleset.Tags == nil {
				cur.Ruleset.Tags = []string{}
			}
			continue
		}
		text.WriteString(line)
	}
	flush()
	return out
}

// hasFrontMatter says whether the files of kind have a front matter that
// says a rule's scope (Cursor's, Copilot's path-specific and Windsurf's
// rules). In every other file a "---" block is text the agent reads, and
// stays in the markdown.
func hasFrontMatter(kind string) bool {
	return kind == "cursor" || kind == "copilot-path" || kind == "windsurf"
}

// byLocation is the ruleset of a file written by hand.
func byLocation(rel string, keys map[string]string, md string) Found {
	dir, base := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	r := rulesets.Ruleset{Markdown: md, Description: keys["description"]}
	switch kindOf(rel) {
	case "main":
		stem := strings.TrimSuffix(base, ".md")
		switch {
		case dir == "":
			r.Name, r.Always = SnakeCase(stem), true
		case rel == ".claude/CLAUDE.md": // Claude Code's other place for the project's file
			r.Name, r.Always = SnakeCase(dir+"_"+stem), true
		default:
			r.Name, r.Globs = SnakeCase(dir+"_"+stem), []string{dir + "/**"}
		}
	case "cursor":
		r.Name = SnakeCase(strings.TrimSuffix(base, ".mdc"))
		r.Globs, r.Always = splitGlobs(keys["globs"]), keys["alwaysApply"] == "true"
	case "copilot":
		r.Name, r.Always = "copilot_instructions", true
	case "copilot-path":
		r.Name = SnakeCase(strings.TrimSuffix(base, ".instructions.md"))
		if globs := splitGlobs(keys["applyTo"]); slices.Contains(globs, "**") {
			r.Always = true
		} else {
			r.Globs = globs
		}
	case "windsurf":
		r.Name = SnakeCase(strings.TrimSuffix(base, ".md"))
		switch keys["trigger"] {
		case "always_on":
			r.Always = true
		case "glob":
			r.Globs = splitGlobs(keys["globs"])
		}
	default: // .cursorrules, .windsurfrules, .clinerules and its folder: all apply
		r.Name, r.Always = SnakeCase(strings.TrimSuffix(base, ".md")), true
	}
	if r.Description == "" {
		r.Description = firstHeading(md)
	}
	if r.Description == "" {
		r.Description = "Rules from " + rel
	}
	return Found{Ruleset: r, Source: rel}
}

var heading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t#]*$`) })

func firstHeading(md string) string {
	if m := heading().FindStringSubmatch(md); m != nil {
		return m[1]
	}
	return ""
}

var notSnake = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// SnakeCase is the ruleset name of a file or directory name: lowercase
// letters and digits, anything else one underscore.
func SnakeCase(s string) string {
	s = strings.Trim(notSnake().ReplaceAllString(strings.ToLower(s), "_"), "_")
	if len(s) > rulesets.MaxNameLen {
		s = strings.TrimRight(s[:rulesets.MaxNameLen], "_")
	}
	if s == "" {
		return "rules"
	}
	return s
}
