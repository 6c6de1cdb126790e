// Package rulefiles reads and writes the files each coding agent takes its
// instructions from (CLAUDE.md, AGENTS.md, GEMINI.md, Cursor's .mdc rules,
// Copilot's instructions, Windsurf's rules, Cline's .clinerules), so that
// the ruleset library is the one source they all come from.
//
// A file export writes starts with a generated marker that holds a hash of
// the rest, so that a hand edit is seen and never overwritten silently,
// and each ruleset in it follows a marker holding what the agent's format
// cannot say (name, tags, the full scope): import reads those back, and a
// round trip loses nothing.
package rulefiles
