//go:build !linux

package procs

import "errors"

// sandboxed: without Landlock commands start directly, with a warning.
const sandboxed = false

func restrictSelf(helperConfig) helperReport {
	return helperReport{Landlock: "unavailable", Reason: "Landlock exists only on Linux"}
}

func execve(string, []string, []string) error { return errors.New("no sandbox helper on this system") }
