package rulesets

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The texts below are fixed by the MCP Ruleset Server specification, the
// user's requirement (docs/servers.md#ruleset-tools). It
// spells a tag list two ways: "[a, b]" in the resource's front matter and
// "[a b]" elsewhere. A ruleset document (get_ruleset, the resource, the
// CLI's get) is front matter, so it always uses the first, a YAML flow
// sequence, in which a tag of several words stays one tag; the list items
// keep the second.

const displayLayout = "2006-01-02 15:04:05"

// Display is the time format of every text result.
func Display(t time.Time) string { return t.UTC().Format(displayLayout) }

// FormatDocument renders a ruleset as get_ruleset and the ruleset://{name}
// resource return it: front matter, then the markdown.
func FormatDocument(r Ruleset) string { return formatDocument(r, 0) }

// FormatVersion renders a past version of a ruleset: its document with
// "version: N" after the name.
func FormatVersion(r Ruleset, version int) string { return formatDocument(r, version) }

func formatDocument(r Ruleset, version int) string {
	var b strings.Builder
	b.Grow(len(r.Markdown) + 256)
	b.WriteString("---\nname: ")
	b.WriteString(r.Name)
	if version > 0 {
		b.WriteString("\nversion: " + strconv.Itoa(version))
	}
	b.WriteString("\ndescription: ")
	b.WriteString(r.Description)
	b.WriteString("\ntags: [")
	b.WriteString(strings.Join(r.Tags, ", "))
	b.WriteString("]")
	writeScope(&b, r.Scope)
	b.WriteString("\ncreated_at: ")
	b.WriteString(Display(r.CreatedAt))
	b.WriteString("\nlast_modified: ")
	b.WriteString(Display(r.LastModified))
	b.WriteString("\n---\n\n")
	b.WriteString(r.Markdown)
	return b.String()
}

// writeScope adds the scope's lines to a front matter, each only when
// set. Globs are quoted: a YAML plain scalar cannot start with '*'.
func writeScope(b *strings.Builder, s Scope) {
	if len(s.Globs) > 0 {
		quoted := make([]string, len(s.Globs))
		for i, g := range s.Globs {
			quoted[i] = strconv.Quote(g)
		}
		b.WriteString("\nglobs: [" + strings.Join(quoted, ", ") + "]")
	}
	if s.Always {
		b.WriteString("\nalways: true")
	}
	if len(s.Targets) > 0 {
		b.WriteString("\ntargets: [" + strings.Join(s.Targets, ", ") + "]")
	}
}

// FormatList renders list_rulesets' result.
func FormatList(items []Summary) string {
	if len(items) == 0 {
		return "No rulesets found"
	}
	return formatItems(fmt.Sprintf("Found %d ruleset(s):\n\n", len(items)), items)
}

// FormatSearch renders search_rulesets' result.
func FormatSearch(pattern string, items []Summary) string {
	if len(items) == 0 {
		return fmt.Sprintf("No rulesets found matching pattern '%s'", pattern)
	}
	return formatItems(fmt.Sprintf("Found %d ruleset(s) matching '%s':\n\n", len(items), pattern), items)
}

func formatItems(header string, items []Summary) string {
	var b strings.Builder
	b.Grow(len(header) + len(items)*160)
	b.WriteString(header)
	for _, s := range items {
		fmt.Fprintf(&b, "- **%s**: %s\n  Tags: %v\n  Created: %s, Modified: %s\n\n",
			s.Name, s.Description, s.Tags, Display(s.CreatedAt), Display(s.LastModified))
	}
	return b.String()
}

// FormatHistory is a ruleset's history as text, a change a line, newest
// first: "TIME  BY  ACTION  FIELDS".
func FormatHistory(name string, changes []Change) string {
	if len(changes) == 0 {
		return "No recorded changes of ruleset '" + name + "' (changes are recorded since the library keeps a history)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d change(s) of ruleset '%s', newest first:", len(changes), name)
	for _, c := range changes {
		b.WriteString("\n")
		if c.Version > 0 {
			fmt.Fprintf(&b, "v%d  ", c.Version)
		}
		fmt.Fprintf(&b, "%s  %s  %s", c.Time.Format(displayLayout), c.By, c.Action)
		switch {
		case c.Restored > 0:
			fmt.Fprintf(&b, " version %d", c.Restored)
		case len(c.Fields) > 0 && c.Action != ActionCreated:
			b.WriteString(": " + strings.Join(c.Fields, ", "))
		}
	}
	return b.String()
}
