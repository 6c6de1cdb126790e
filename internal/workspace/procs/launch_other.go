//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package procs

import (
	"errors"
	"syscall"

	"github.com/sudocode/sudocode/internal/sandbox"
	"github.com/sudocode/sudocode/internal/workspace"
)

func (m *Manager) launch(Request, []string) (*session, []string, error) {
	return nil, nil, workspace.Errorf("INTERNAL_ERROR", nil, "could not start the command: %v", errors.New("exec_command needs a Unix system"))
}

func signalGroup(int, syscall.Signal) {}

func groupAlive(int) bool { return false }

func exitStatus(c *sandbox.Cmd) (int, string) {
	code, _ := c.ExitStatus()
	return code, ""
}
