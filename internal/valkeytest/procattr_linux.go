package valkeytest

import "syscall"

// sysProcAttr kills the server with the test binary, even when it crashes.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
