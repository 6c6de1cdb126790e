package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// Rules is the part of the ruleset library a prompt reads.
type Rules = rulesets.Reader

// Prompt assembles the prompt of an agent working on issue id: the issue
// and its latest comments, the specs it implements (markdown and open feedback), its parent, what
// it was discovered from, the closed blockers it builds on (with how they
// were closed), the rulesets that apply (those tagged with one of the
// issue's tags, those the library or the project marks always-on, and
// those scoped to paths, with their globs), and how to use the tracker.
// reader is the rulesets' name of the agent that reads the prompt
// (RulesAgent): a ruleset targeted at other agents is left out.
func Prompt(ctx context.Context, r *store.Repo, rules Rules, always []string, reader, id string) (string, error) {
	d, err := r.ShowIssue(ctx, id)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Issue %s: %s\n\n", d.ID, d.Title)
	if s := strings.TrimSpace(d.Description); s != "" {
		b.WriteString(s + "\n\n")
	}
	writeComments(&b, d.Comments)
	for _, rel := range d.Relationships.Outgoing {
		if rel.Type != tracker.RelImplements || rel.ToType != tracker.KindSpec {
			continue
		}
		if err := writeSpec(ctx, &b, r, rel.To); err != nil {
			return "", err
		}
	}
	if d.ParentID != nil {
		if p, err := r.ShowIssue(ctx, *d.ParentID); err == nil {
			fmt.Fprintf(&b, "## Parent issue %s: %s\n\n%s\n\n", p.ID, p.Title, strings.TrimSpace(p.Description))
		}
	}
	var builds []string
	for _, rel := range d.Relationships.Outgoing {
		switch rel.Type {
		case tracker.RelDiscoveredFrom:
			if rel.ToType == tracker.KindIssue {
				if o, err := r.ShowIssue(ctx, rel.To); err == nil {
					fmt.Fprintf(&b, "## Discovered while working on %s: %s\n\n%s\n\n", o.ID, o.Title, strings.TrimSpace(o.Description))
				}
			}
		case tracker.RelBlocks, tracker.RelDependsOn:
			if rel.ToType == tracker.KindIssue {
				if o, err := r.ShowIssue(ctx, rel.To); err == nil && o.Status == tracker.IssueClosed {
					reason := ""
					if o.CloseReason != nil {
						reason = *o.CloseReason
					}
					builds = append(builds, fmt.Sprintf("- %s: %s (closed: %s)", o.ID, o.Title, reason))
				}
			}
		}
	}
	if len(builds) > 0 {
		b.WriteString("## Builds on (done before this issue)\n\n" + strings.Join(builds, "\n") + "\n\n")
	}
	if err := writeRules(ctx, &b, rules, always, reader, d.Tags); err != nil {
		return "", err
	}
	fmt.Fprintf(&b, `## How to work

You work in a git worktree on a branch of your own. What you leave in it is what gets
reviewed and merged: new, changed and deleted files, committed or not (files git ignores
are left out). Commit if you like, but you need not commit: sudocode commits what you
leave uncommitted when the branch is merged or the task ends.
The tracker's MCP server (sudocode) is available to you: when a spec is unclear or wrong,
add feedback anchored on its text (add_feedback, with issue_id %[1]s); file the work you
discover and leave for later as new issues linked discovered-from %[1]s (create_issue, then
link with type discovered-from). Leave what the people and agents after you should know
(a finding, a decision, where you stopped) as a comment (add_comment, with issue_id %[1]s).
Do not close %[1]s yourself: it closes when your branch is merged.
`, d.ID)
	return b.String(), nil
}

// The comments a prompt carries: the latest, up to a count and a size, so
// that a long discussion does not crowd out the issue and its specs.
const (
	promptComments     = 20
	promptCommentBytes = 16 << 10
)

// writeComments writes the issue's latest comments, oldest first, saying
// how many earlier ones were left out.
func writeComments(b *strings.Builder, comments []tracker.Comment) {
	var kept []string
	size := 0
	for i := len(comments) - 1; i >= 0 && len(kept) < promptComments; i-- {
		c := comments[i]
		body := strings.ReplaceAll(strings.TrimSpace(c.Body), "\n", "\n  ")
		entry := fmt.Sprintf("- %s, %s: %s", c.Author, c.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), body)
		if size+len(entry) > promptCommentBytes && len(kept) > 0 {
			break
		}
		kept = append(kept, entry)
		size += len(entry)
	}
	if len(kept) == 0 {
		return
	}
	slices.Reverse(kept)
	b.WriteString("## Comments on the issue\n\n")
	if left := len(comments) - len(kept); left > 0 {
		fmt.Fprintf(b, "(%d earlier comments left out: show_issue has them all.)\n", left)
	}
	b.WriteString(strings.Join(kept, "\n") + "\n\n")
}

// writeSpec writes spec id's markdown and its open feedback.
func writeSpec(ctx context.Context, b *strings.Builder, r *store.Repo, id string) error {
	s, err := r.ShowSpec(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "## Spec %s: %s\n\n%s\n\n", s.ID, s.Title, strings.TrimSpace(s.Content))
	var open []string
	for _, f := range s.Feedback {
		if f.Status != tracker.FeedbackOpen {
			continue
		}
		where := ""
		if f.Anchor.SectionHeading != nil {
			where = " in \"" + *f.Anchor.SectionHeading + "\""
		}
		open = append(open, fmt.Sprintf("- %s (%s%s, line %d): %s", f.ID, f.Type, where, f.Anchor.LineNumber, f.Content))
	}
	if len(open) > 0 {
		fmt.Fprintf(b, "### Open feedback on %s\n\n%s\n\n", s.ID, strings.Join(open, "\n"))
	}
	return nil
}

// writeRules writes the rulesets that apply for reader: each one named in
// always or marked always in the library, each one tagged with one of
// tags, and each one scoped to paths (the agent applies it to the files
// its globs match), by name.
func writeRules(ctx context.Context, b *strings.Builder, rules Rules, always []string, reader string, tags []string) error {
	if rules == nil {
		if len(always) > 0 {
			return fault.New(fault.Unavailable, "the project's always-on rulesets %s cannot be read: no ruleset library is configured", strings.Join(always, ", "))
		}
		return nil
	}
	all, err := rulesets.AllOf(ctx, rules)
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "the ruleset library cannot be read")
	}
	var parts []string
	for _, rs := range all {
		named := slices.Contains(always, rs.Name)
		if !named && !rs.ReadBy(reader) {
			continue
		}
		switch {
		case named, rs.Always, slices.ContainsFunc(rs.Tags, func(t string) bool { return slices.Contains(tags, t) }):
			parts = append(parts, fmt.Sprintf("### %s\n\n%s\n\n", rs.Name, strings.TrimSpace(rs.Markdown)))
		case len(rs.Globs) > 0:
			parts = append(parts, fmt.Sprintf("### %s (for files matching %s)\n\n%s\n\n", rs.Name, strings.Join(rs.Globs, ", "), strings.TrimSpace(rs.Markdown)))
		}
		always = slices.DeleteFunc(slices.Clone(always), func(n string) bool { return n == rs.Name })
	}
	if len(always) > 0 {
		return fault.New(fault.NotFound, "the project's always-on rulesets %s are not in the ruleset library", strings.Join(always, ", ")).
			WithHint("create them, or remove them from \"rulesets\" in .sudocode/agent.json")
	}
	if len(parts) == 0 {
		return nil
	}
	b.WriteString("## Rules to follow\n\n" + strings.Join(parts, ""))
	return nil
}

// RulesAgent is the rulesets' name (rulesets.KnownAgents) of the agent a
// task runs with tool: a COMMAND agent reads what AGENTS.md carries.
func RulesAgent(tool string) string {
	switch strings.ToUpper(tool) {
	case agent.ToolClaudeCode:
		return "claude"
	case agent.ToolCodex:
		return "codex"
	case agent.ToolGemini:
		return "gemini"
	case agent.ToolOpenCode:
		return "opencode"
	}
	return "agents"
}
