//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package procs

import "golang.org/x/sys/unix"

const getTermios, setTermios = unix.TIOCGETA, unix.TIOCSETA
