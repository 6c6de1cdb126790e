//go:build !linux

package sandbox

import (
	"os"
	"os/exec"
)

const unavailableReason = "Landlock and the sandbox helper exist only on Linux"

func helperExe() string { return "" }

func lifeline() (*os.File, error) { return nil, nil }

func startContained(c *exec.Cmd, _ *boxConfig) error { return c.Start() }

func newBox(Policy) (*boxConfig, string) { return nil, unavailableReason }

func probeBox() int { return 1 }

func probe() int { return 0 }

func supervise(helperConfig, []string, []string) int { return 126 }

func restrictAndExec(helperConfig, []string, []string) int { return 126 }

// BoxUnavailable is why the sealed box cannot be built here.
func BoxUnavailable() string { return unavailableReason }

func serveWarm(helperConfig) int { return 126 }
