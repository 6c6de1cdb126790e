package orchestrator

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/fault"
)

// settingsFile is the project's orchestrator settings, relative to the
// top of the user's checkout. It is the orchestrator's own file, beside
// the tracker's .sudocode/config.json, so that neither parses the other's
// keys.
const settingsFile = ".sudocode/agent.json"

// Settings are a project's orchestrator settings (.sudocode/agent.json),
// e.g. {"worktrees": "../app-worktrees"}. Worktrees is where task
// worktrees go (relative to the checkout; the server's --worktrees and
// SUDOCODE_WORKTREES win over it).
type Settings struct {
	Worktrees string `json:"worktrees,omitempty"`
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
			WithHint(`expected {"worktrees": DIR}`)
	}
	return s, nil
}
