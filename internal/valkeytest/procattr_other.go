//go:build !linux

package valkeytest

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
