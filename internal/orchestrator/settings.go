package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/userenv"
)

// settingsFile is the project's orchestrator settings, relative to the
// top of the user's checkout. It is the orchestrator's own file, beside
// the tracker's .sudocode/config.json, so that neither parses the other's
// keys.
const settingsFile = ".sudocode/agent.json"

// Settings are a project's orchestrator settings (.sudocode/agent.json):
//
//	{
//	  "worktrees": "/home/me/.local/state/app-worktrees",
//	  "copy": [".env", "config/local.yaml"],
//	  "setup": "npm ci",
//	  "cleanup": ["make", "clean-cache"],
//	  "rulesets": ["go_style"],
//	  "merge": {"strategy": "squash", "check": "go test ./...", "keep_branch": false}
//	}
//
// Worktrees is where task worktrees go (the server's --worktrees and
// SUDOCODE_WORKTREES win over it). Copy lists files or directories of the
// user's checkout (typically untracked ones such as .env) copied into
// each new task worktree. Setup runs in the worktree before the task's
// first agent run, Cleanup before the worktree is removed; each is an
// argv list, or a string run with sh -c.
//
// Rulesets names the rulesets that are always on: the prompt of every task
// started from an issue includes them, beside those whose tags the issue
// carries (the ruleset library has no per-project switch, and which
// conventions a project always follows is the project's decision, kept
// in its repository). Merge configures merge_task (see MergeSettings).
//
// The file is repository content: a pull, or an agent's patch, can change
// it. So the settings that run something (setup, copy, merge.check and
// cleanup) are data until the user trusts that exact file (`sudocode
// trust`, or the dashboard's Trust button: its SHA-256 recorded in the
// user's state directory, see package trust); an untrusted or changed
// file refuses a task start (setup, copy) and a merge (merge.check), and
// an end skips its cleanup, saying so in the task's log. Even trusted,
// they run in the sandbox with the task's worktree as their workspace
// (see phaseBox). Copy counts as a command because it moves the
// checkout's untracked files, secrets such as .env among them, to where
// an agent reads them. The other settings are read whether trusted or
// not, as they choose among things the user already has and run nothing:
// rulesets (the user's own library), merge.strategy and keep_branch (for
// a merge the user asks for). Worktrees is read too, but a repository may
// only name a directory in the user's state directory (see worktreeDir).
type Settings struct {
	Worktrees string        `json:"worktrees,omitempty"`
	Copy      []string      `json:"copy,omitempty"`
	Setup     Command       `json:"setup,omitempty"`
	Cleanup   Command       `json:"cleanup,omitempty"`
	Rulesets  []string      `json:"rulesets,omitempty"`
	Merge     MergeSettings `json:"merge,omitempty"`

	trust fileTrust // whether the user trusted these bytes (see trust.go)
	top   string    // the checkout they were read from
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

// maxSettingsBytes bounds the settings file: it is read whole.
const maxSettingsBytes = 1 << 20

// loadSettings reads top's settings file once, parses it, and looks up
// whether the user of env trusted its bytes; a missing file is no
// settings.
// A .sudocode or agent.json that is a symbolic link is refused: the
// settings (and the trust given to them) are the project's own.
func loadSettings(top string, env userenv.Env) (Settings, error) {
	var s Settings
	b, err := readSettingsFile(top)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
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
	s.trust, err = lookupTrust(top, b, env)
	return s, err
}

// readSettingsFile reads top's settings file, refusing links and
// anything but a regular file of a sane size.
func readSettingsFile(top string) ([]byte, error) {
	dir := filepath.Join(top, filepath.Dir(settingsFile))
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fault.New(fault.Invalid, "%s is a symbolic link: refusing to read settings (or a tracker) through it", dir).
			WithHint("a project's .sudocode must be a directory of its own; replace the link with a directory")
	}
	path := filepath.Join(top, settingsFile)
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		return nil, fault.Wrap(fault.Unavailable, err, "cannot read "+settingsFile)
	}
	if !fi.Mode().IsRegular() {
		return nil, fault.New(fault.Invalid, "%s is not a regular file (a link, a directory or a device): refusing to read it", path).
			WithHint("make " + settingsFile + " a plain file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot read "+settingsFile)
	}
	defer f.Close()
	if opened, err := f.Stat(); err != nil || !os.SameFile(fi, opened) {
		return nil, fault.New(fault.Conflict, "%s changed while it was read", path).WithHint("try again")
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSettingsBytes+1))
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "cannot read "+settingsFile)
	}
	if len(b) > maxSettingsBytes {
		return nil, fault.New(fault.Invalid, "%s is larger than %d bytes", settingsFile, maxSettingsBytes)
	}
	return b, nil
}

// Settings returns the project's settings (.sudocode/agent.json).
func (o *Orchestrator) Settings(ctx context.Context) (Settings, error) {
	_, s, err := o.wt.settings(ctx)
	return s, err
}
