package rulesets

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/sudocode/sudocode/internal/fault"
)

// How an applied ruleset came to apply, in the order Resolve lists them.
const (
	ModeAlways    = "always"    // always applied
	ModeGlob      = "glob"      // one of its globs matches a path
	ModeRequested = "requested" // no globs, not always: the agent applies it when it judges it relevant
)

// Applied is a ruleset that applies to the paths for the agent.
type Applied struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Mode        string `json:"mode" jsonschema:"always, glob or requested (no globs and not always: applied when relevant)"`
	Origin      string `json:"origin" jsonschema:"Where it comes from: always, the glob and path that matched, or everywhere"`
	Tokens      int    `json:"tokens" jsonschema:"An estimate of the markdown's size in tokens (bytes/4)"`
	Markdown    string `json:"markdown"`
}

// readsFiles are the targets whose files each agent reads: its own, and
// AGENTS.md for the many agents that read it.
var readsFiles = map[string][]string{
	"claude":   {"claude"},
	"gemini":   {"gemini"},
	"agents":   {"agents"},
	"codex":    {"agents"},
	"opencode": {"agents"},
	"amp":      {"agents"},
	"jules":    {"agents"},
	"cursor":   {"cursor", "agents"},
	"copilot":  {"copilot", "agents"},
	"windsurf": {"windsurf", "agents"},
}

// KnownAgents are the agent names Resolve takes.
func KnownAgents() []string {
	var out []string
	for a := range readsFiles {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// EstimateTokens is a text's size in tokens, roughly: four bytes a token.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// Resolve returns the rulesets that apply to paths (relative to the
// repository root; none: no particular file) for agent ("" any agent),
// in the order a prompt should carry them, general first: those always
// applied, then those a glob attaches (the least specific glob first, so
// the nearest rules come last and win), then those left to the agent's
// judgement. A ruleset with targets applies only to the agents that read
// one of them.
func (l Library) Resolve(ctx context.Context, paths []string, agent string) ([]Applied, error) {
	reads, ok := readsFiles[agent]
	if agent != "" && !ok {
		return nil, fault.New(fault.Invalid, "unknown agent '%s': must be one of %s", agent, strings.Join(KnownAgents(), ", "))
	}
	clean := make([]string, 0, len(paths))
	for _, p := range paths {
		c := path.Clean(strings.ReplaceAll(p, "\\", "/"))
		if strings.HasPrefix(c, "/") || c == ".." || strings.HasPrefix(c, "../") {
			return nil, fault.New(fault.Invalid, "invalid path '%s': must be relative to the repository root", p)
		}
		if c != "." {
			clean = append(clean, c)
		}
	}
	all, err := l.All(ctx)
	if err != nil {
		return nil, err
	}
	type ranked struct {
		Applied
		rank, specificity int
	}
	var out []ranked
	for _, r := range all {
		if !r.readBy(agent, reads) {
			continue
		}
		a := ranked{Applied: Applied{Name: r.Name, Description: r.Description, Tokens: EstimateTokens(r.Markdown), Markdown: r.Markdown}}
		switch glob, file := matchGlobs(r.Globs, clean); {
		case r.Always:
			a.Mode, a.Origin = ModeAlways, "always"
		case glob != "":
			a.Mode, a.Origin, a.rank, a.specificity = ModeGlob, "glob "+glob+" matches "+file, 1, literalPrefix(glob)
		case len(r.Globs) == 0:
			a.Mode, a.Origin, a.rank = ModeRequested, "everywhere, when relevant", 2
		default:
			continue
		}
		out = append(out, a)
	}
	slices.SortStableFunc(out, func(a, b ranked) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		if a.specificity != b.specificity {
			return a.specificity - b.specificity
		}
		return strings.Compare(a.Name, b.Name)
	})
	res := make([]Applied, len(out))
	for i, a := range out {
		res[i] = a.Applied
	}
	return res, nil
}

// ReadBy reports whether agent (one of KnownAgents, or "" for any) reads
// r: r names no targets, or one of them is a file the agent reads.
func (r Ruleset) ReadBy(agent string) bool { return r.readBy(agent, readsFiles[agent]) }

func (r Ruleset) readBy(agent string, reads []string) bool {
	return agent == "" || len(r.Targets) == 0 || slices.ContainsFunc(reads, func(t string) bool { return slices.Contains(r.Targets, t) })
}

// matchGlobs returns the first glob matching one of paths, and the path.
func matchGlobs(globs, paths []string) (glob, file string) {
	for _, g := range globs {
		for _, p := range paths {
			if MatchGlob(g, p) {
				return g, p
			}
		}
	}
	return "", ""
}

// MatchGlob reports whether a scope's glob g picks the repository path p
// ("/"-separated, relative to the root): a glob without '/' matches a
// base name in any directory.
func MatchGlob(g, p string) bool {
	if !strings.Contains(g, "/") {
		p = path.Base(p)
	}
	ok, _ := doublestar.Match(g, p)
	return ok
}

// literalPrefix is how specific a glob is: the length of its part before
// the first wildcard.
func literalPrefix(g string) int {
	if i := strings.IndexAny(g, "*?[{"); i >= 0 {
		return i
	}
	return len(g)
}
