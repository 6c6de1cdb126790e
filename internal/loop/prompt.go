package loop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// Rules is the part of the ruleset library a prompt reads.
type Rules interface {
	Search(ctx context.Context, pattern string) ([]rulesets.Summary, error)
	Get(ctx context.Context, name string) (rulesets.Ruleset, error)
}

// Prompt assembles the prompt of an agent working on issue id: the issue,
// the specs it implements (markdown and open feedback), its parent, what
// it was discovered from, the closed blockers it builds on (with how they
// were closed), the rulesets that apply (those tagged with one of the
// issue's tags, and the always-on names), and how to use the tracker.
func Prompt(ctx context.Context, r *store.Repo, rules Rules, always []string, id string) (string, error) {
	d, err := r.ShowIssue(ctx, id)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Issue %s: %s\n\n", d.ID, d.Title)
	if s := strings.TrimSpace(d.Description); s != "" {
		b.WriteString(s + "\n\n")
	}
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
	if err := writeRules(ctx, &b, rules, always, d.Tags); err != nil {
		return "", err
	}
	fmt.Fprintf(&b, `## How to work

You work on a branch of your own; commit your changes there when you are done.
The tracker's MCP server (sudocode) is available to you: when a spec is unclear or wrong,
add feedback anchored on its text (add_feedback, with issue_id %[1]s); file the work you
discover and leave for later as new issues linked discovered-from %[1]s (create_issue, then
link with type discovered-from). Do not close %[1]s yourself: it closes when your
branch is merged.
`, d.ID)
	return b.String(), nil
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

// writeRules writes the rulesets that apply: each one named in always,
// and each one tagged with one of tags, by name.
func writeRules(ctx context.Context, b *strings.Builder, rules Rules, always, tags []string) error {
	names := slices.Clone(always)
	if rules == nil {
		if len(names) > 0 {
			return fault.New(fault.Unavailable, "the project's always-on rulesets %s cannot be read: no ruleset library is configured", strings.Join(names, ", "))
		}
		return nil
	}
	if len(tags) > 0 {
		all, err := rules.Search(ctx, "*")
		if err != nil {
			return err
		}
		for _, s := range all {
			if slices.ContainsFunc(s.Tags, func(t string) bool { return slices.Contains(tags, t) }) {
				names = append(names, s.Name)
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		return nil
	}
	b.WriteString("## Rules to follow\n\n")
	for _, n := range names {
		rs, err := rules.Get(ctx, n)
		if err != nil {
			return fault.Wrap(fault.Unavailable, err, "ruleset "+n+" cannot be read")
		}
		fmt.Fprintf(b, "### %s\n\n%s\n\n", rs.Name, strings.TrimSpace(rs.Markdown))
	}
	return nil
}
