package rulesets

import (
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/sudocode/sudocode/internal/fault"
)

// Scope says where a ruleset applies and which agents' files it goes to,
// beyond the specification's fields. Its zero value is the specification's
// ruleset: everywhere, when asked, for every agent.
type Scope struct {
	// Globs are the paths it applies to, relative to the repository root
	// (doublestar patterns; a pattern without '/' matches a base name in
	// any directory). None: everywhere.
	Globs []string `json:"globs,omitempty"`
	// Always: applied without being asked (Cursor's alwaysApply, Windsurf's
	// always_on, a root CLAUDE.md).
	Always bool `json:"always,omitempty"`
	// Targets are the agents whose files it is exported to (Agents). None:
	// all of them.
	Targets []string `json:"targets,omitempty"`
}

// IsZero reports whether s is the specification's ruleset, without scope.
func (s Scope) IsZero() bool { return len(s.Globs) == 0 && !s.Always && len(s.Targets) == 0 }

// Agents are the targets a ruleset can name: the agents (and AGENTS.md,
// which many agents read) whose rule files export writes.
var Agents = []string{"claude", "agents", "cursor", "copilot", "gemini", "windsurf"}

// Limits of a scope.
const (
	MaxGlobs   = 64
	MaxGlobLen = 256
)

// ValidateGlobs refuses a glob that is empty, padded, multi-line, too long
// or not a valid pattern.
func ValidateGlobs(globs []string) error {
	if len(globs) > MaxGlobs {
		return fault.New(fault.Invalid, "too many globs (%d; the limit is %d)", len(globs), MaxGlobs)
	}
	for _, g := range globs {
		if g == "" || strings.TrimSpace(g) != g || len(g) > MaxGlobLen || strings.ContainsAny(g, "\r\n") || !doublestar.ValidatePattern(g) {
			return fault.New(fault.Invalid, "invalid glob %q: globs are single-line doublestar patterns of at most %d bytes relative to the repository root, e.g. pkg/api/** or **/*.go", g, MaxGlobLen)
		}
	}
	return nil
}

// ValidateTargets refuses a target that is not one of Agents.
func ValidateTargets(targets []string) error {
	for _, t := range targets {
		if !slices.Contains(Agents, t) {
			return fault.New(fault.Invalid, "invalid target %q: must be one of %s", t, strings.Join(Agents, ", "))
		}
	}
	return nil
}
