package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
)

// settingsFile is the project's orchestrator settings, relative to the
// top of the user's checkout. It is the orchestrator's own file, beside
// the tracker's .sudocode/config.json, so that neither parses the other's
// keys.
const settingsFile = ".sudocode/agent.json"

// Settings are a project's orchestrator settings (.sudocode/agent.json):
//
//	{
//	  "worktrees": "../app-worktrees",
//	  "copy": [".env", "config/local.yaml"],
//	  "setup": "npm ci",
//	  "cleanup": ["docker", "compose", "down"],
//	  "rulesets": ["go_style"],
//	  "merge": {"strategy": "squash", "check": "go test ./...", "keep_branch": false}
//	}
//
// Worktrees is where task worktrees go (relative to the checkout; the
// server's --worktrees and SUDOCODE_WORKTREES win over it). Copy lists
// files or directories of the user's checkout (typically untracked ones
// such as .env) copied into each new task worktree. Setup runs in the
// worktree before the task's first agent run, Cleanup before the worktree
// is removed; each is an argv list, or a string run with sh -c.
//
// Rulesets names the rulesets that are always on: the prompt of every task
// started from an issue includes them, beside those whose tags the issue
// carries (the ruleset library has no per-project switch, and which
// conventions a project always follows is the project's decision, kept
// in its repository). Merge configures merge_task (see MergeSettings).
type Settings struct {
	Worktrees string        `json:"worktrees,omitempty"`
	Copy      []string      `json:"copy,omitempty"`
	Setup     Command       `json:"setup,omitempty"`
	Cleanup   Command       `json:"cleanup,omitempty"`
	Rulesets  []string      `json:"rulesets,omitempty"`
	Merge     MergeSettings `json:"merge,omitempty"`
}

// MergeSettings configure merge_task: the default Strategy (squash, ff or
// merge; empty is squash), a Check command run on the merged tree before
// the base branch moves (a failure refuses the merge), and whether the
// task's branch is kept after a merge (default: deleted).
type MergeSettings struct {
	Strategy   string  `json:"strategy,omitempty"`
	Check      Command `json:"check,omitempty"`
	KeepBranch bool    `json:"keep_branch,omitempty"`
}

// Command is a setting's command line: an argv, or a shell string.
type Command []string

// UnmarshalJSON takes a list of strings, or one string for sh -c.
func (c *Command) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*c = nil
		if strings.TrimSpace(s) != "" {
			*c = Command{"/bin/sh", "-c", s}
		}
		return nil
	}
	var argv []string
	if err := json.Unmarshal(b, &argv); err != nil {
		return errors.New("want a command string or a list of strings")
	}
	*c = argv
	return nil
}

// String renders c for logs.
func (c Command) String() string {
	if len(c) == 3 && c[0] == "/bin/sh" && c[1] == "-c" {
		return c[2]
	}
	return fmt.Sprintf("%q", []string(c))
}

// loadSettings reads top's settings file; a missing file is no settings.
func loadSettings(top string) (Settings, error) {
	var s Settings
	b, err := os.ReadFile(filepath.Join(top, settingsFile))
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fault.Wrap(fault.Unavailable, err, "cannot read "+settingsFile)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fault.New(fault.Invalid, "%s is not valid: %v", settingsFile, err).
			WithHint(`expected {"worktrees": DIR, "copy": [PATH…], "setup": CMD, "cleanup": CMD, "rulesets": [NAME…], "merge": {"strategy": "squash"|"ff"|"merge", "check": CMD, "keep_branch": BOOL}}, a CMD being a string for sh -c or an argv list`)
	}
	for _, p := range s.Copy {
		if !filepath.IsLocal(p) {
			return s, fault.New(fault.Invalid, "%s: copy entry %q must be a relative path inside the checkout", settingsFile, p)
		}
	}
	if _, err := ParseMergeStrategy(s.Merge.Strategy); err != nil {
		return s, fault.New(fault.Invalid, "%s: merge.strategy: %v", settingsFile, err)
	}
	for name, c := range map[string]Command{"setup": s.Setup, "cleanup": s.Cleanup, "merge.check": s.Merge.Check} {
		if len(c) > 0 && strings.TrimSpace(c[0]) == "" {
			return s, fault.New(fault.Invalid, "%s: %s has an empty program name", settingsFile, name)
		}
	}
	return s, nil
}

// Settings returns the project's settings (.sudocode/agent.json).
func (o *Orchestrator) Settings(ctx context.Context) (Settings, error) {
	_, s, err := o.wt.settings(ctx)
	return s, err
}
