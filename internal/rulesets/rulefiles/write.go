package rulefiles

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// mainFile is the file of the agents that read one markdown file per
// directory.
var mainFile = map[string]string{"claude": "CLAUDE.md", "agents": "AGENTS.md", "gemini": "GEMINI.md"}

// Render is what an export for agent writes of rs (those whose targets
// include agent, or that have none): each file's path from the repository
// root and its content.
//
//   - claude, agents, gemini: a ruleset whose globs are all whole
//     directories (pkg/api/**) goes to the main file of each directory;
//     any other goes to the root file (a ruleset with neither globs nor
//     always goes there too, under its own marker: these agents have no
//     "when asked" mode).
//   - cursor: one .cursor/rules/NAME.mdc each (description, globs,
//     alwaysApply).
//   - copilot: a ruleset with globs and not always gets
//     .github/instructions/NAME.instructions.md (applyTo); the others go
//     to .github/copilot-instructions.md.
//   - windsurf: one .windsurf/rules/NAME.md each (trigger always_on, glob
//     or model_decision).
//
// File names use '-' for the name's '_', as these tools' own files do
// (ruleFile); Export keeps a file a ruleset already has under another name.
func Render(rs []rulesets.Ruleset, agent string) map[string]string {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b rulesets.Ruleset) int { return strings.Compare(a.Name, b.Name) })
	sections := map[string][]rulesets.Ruleset{} // files of several rulesets
	out := map[string]string{}
	for _, r := range rs {
		if len(r.Targets) > 0 && !slices.Contains(r.Targets, agent) {
			continue
		}
		switch agent {
		case "claude", "agents", "gemini":
			dirs := wholeDirs(r.Scope)
			if dirs == nil {
				dirs = []string{""}
			}
			for _, d := range dirs {
				p := path.Join(d, mainFile[agent])
				sections[p] = append(sections[p], r)
			}
		case "cursor":
			out[ruleFile("cursor", r.Name)] = seal(frontMatter("description", yamlString(r.Description),
				"globs", strings.Join(r.Globs, ","), "alwaysApply", strconv.FormatBool(r.Always)), body(r))
		case "copilot":
			if len(r.Globs) > 0 && !r.Always {
				out[ruleFile("copilot-path", r.Name)] = seal(frontMatter("applyTo", strconv.Quote(strings.Join(r.Globs, ",")),
					"description", yamlString(r.Description)), body(r))
				continue
			}
			p := ".github/copilot-instructions.md"
			sections[p] = append(sections[p], r)
		case "windsurf":
			var front string
			switch {
			case r.Always:
				front = frontMatter("trigger", "always_on")
			case len(r.Globs) > 0:
				front = frontMatter("trigger", "glob", "globs", strings.Join(r.Globs, ","))
			default:
				front = frontMatter("trigger", "model_decision", "description", yamlString(r.Description))
			}
			out[ruleFile("windsurf", r.Name)] = seal(front, body(r))
		}
	}
	for p, list := range sections {
		var b strings.Builder
		for _, r := range list {
			b.WriteString(body(r))
		}
		out[p] = seal("", b.String())
	}
	return out
}

// ruleFile is the file Render writes a ruleset to in the formats of one
// file per rule (kindOf's cursor, copilot-path and windsurf).
func ruleFile(kind, name string) string {
	file := strings.ReplaceAll(name, "_", "-")
	switch kind {
	case "cursor":
		return ".cursor/rules/" + file + ".mdc"
	case "copilot-path":
		return ".github/instructions/" + file + ".instructions.md"
	}
	return ".windsurf/rules/" + file + ".md"
}

// body is a ruleset's section: a blank line, its marker, its markdown.
func body(r rulesets.Ruleset) string {
	m := meta{Name: r.Name, Description: r.Description, Tags: r.Tags, Globs: r.Globs, Always: r.Always, Targets: r.Targets}
	if len(m.Tags) == 0 {
		m.Tags = nil
	}
	return "\n" + sectionLine(m) + "\n" + strings.Trim(r.Markdown, "\n") + "\n"
}

// wholeDirs are the directories of s's globs when each glob is a whole
// directory ("pkg/api/**") and s is not always applied; else nil.
func wholeDirs(s rulesets.Scope) []string {
	if s.Always || len(s.Globs) == 0 {
		return nil
	}
	var dirs []string
	for _, g := range s.Globs {
		d, ok := strings.CutSuffix(g, "/**")
		if !ok || d == "" || strings.ContainsAny(d, "*?[]{}") {
			return nil
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// yamlString is s as a YAML value: plain when that reads back as s,
// else double-quoted.
func yamlString(s string) string {
	if s == "" || strings.ContainsAny(s[:1], "!&*-?[]{}|>'\"%@`#,: ") || strings.Contains(s, ": ") || strings.Contains(s, " #") ||
		strings.HasSuffix(s, ":") || strings.HasSuffix(s, " ") {
		return strconv.Quote(s)
	}
	return s
}
