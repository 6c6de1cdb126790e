//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package procs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/sudocode/sudocode/internal/sandbox"
	"github.com/sudocode/sudocode/internal/workspace"
)

// shell runs every command.
const shell = "/bin/sh"

// launch starts a command in the sandbox, in a new session and process
// group, on pipes or a pseudo-terminal.
func (m *Manager) launch(req Request, env []string) (s *session, warnings []string, err error) {
	s = &session{m: m, id: newID(), tty: req.TTY, changed: make(chan struct{}), finishedCh: make(chan struct{})}
	cmd := &exec.Cmd{Path: shell, Args: []string{shell, "-c", req.Cmd}, Env: env}
	cmd.Dir = req.Dir
	var childEnds []*os.File // closed once the child has them
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			if f != nil {
				f.Close()
			}
		}
	}
	var readers []*os.File
	var stdinW *os.File
	if req.TTY {
		ptmx, tty, err := pty.Open()
		if err != nil {
			return nil, nil, spawnError(fmt.Errorf("opening a pseudo-terminal: %w", err))
		}
		pty.Setsize(ptmx, &pty.Winsize{Rows: 50, Cols: 200})
		noEcho(tty)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		childEnds = []*os.File{tty}
		readers = []*os.File{ptmx}
		s.stdin = ptmx
		s.files = []*os.File{ptmx}
		s.writes = make(chan []byte, 256)
		s.stdinOpen = true
	} else {
		var ends [6]*os.File // stdin r/w, stdout r/w, stderr r/w
		for i := 0; i < 6; i += 2 {
			if ends[i], ends[i+1], err = os.Pipe(); err != nil {
				closeAll(ends[:])
				return nil, nil, spawnError(err)
			}
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = ends[0], ends[3], ends[5]
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		childEnds = []*os.File{ends[0], ends[3], ends[5]}
		readers = []*os.File{ends[2], ends[4]}
		stdinW = ends[1]
		s.files = []*os.File{ends[2], ends[4]}
	}
	sc := sandbox.Command(cmd, m.sandboxPolicy(req.TTY))
	sc.Warm = m.warm

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		closeAll(childEnds)
		closeAll(readers)
		closeAll([]*os.File{stdinW})
		return nil, nil, workspace.Errorf("INTERNAL_ERROR", nil, "the server is shutting down: command not started")
	}
	// Start returns once the helper has started the shell, so the
	// deadline counts from the shell's start.
	err = sc.Start()
	if err == nil {
		// Complete before Close can see it.
		s.cmd, s.pid = sc, sc.Pid()
		s.timer = time.AfterFunc(req.Timeout, s.onDeadline)
		s.openStreams = len(readers)
		s.held = true // by the exec_command call until it decides
		m.live[s] = struct{}{}
	}
	m.mu.Unlock()
	closeAll(childEnds)
	if err != nil {
		closeAll(readers)
		closeAll([]*os.File{stdinW})
		return nil, nil, spawnError(err)
	}
	if w := sandboxWarning(sc.Report()); w != "" {
		warnings = append(warnings, w)
	}
	go s.pump(readers[0], &s.out)
	if len(readers) > 1 {
		go s.pump(readers[1], &s.errs)
	}
	go s.reap()

	if req.TTY {
		go s.writer()
		if req.Stdin != "" {
			s.writes <- []byte(req.Stdin)
		}
	} else {
		go func() {
			io.WriteString(stdinW, req.Stdin)
			stdinW.Close()
		}()
	}
	return s, warnings, nil
}

// noEcho turns the terminal's echo off: what write_stdin sends is not
// repeated in the output (programs that edit lines, like readline, still
// show what they read).
func noEcho(tty *os.File) {
	if t, err := unix.IoctlGetTermios(int(tty.Fd()), getTermios); err == nil {
		t.Lflag &^= unix.ECHO | unix.ECHONL
		unix.IoctlSetTermios(int(tty.Fd()), setTermios, t)
	}
}

func spawnError(err error) error {
	return workspace.Errorf("INTERNAL_ERROR", map[string]any{"reason": err.Error()}, "could not start the command: %v", err)
}

// signalGroup sends sig to the process group pgid.
func signalGroup(pgid int, sig syscall.Signal) {
	if pgid > 0 {
		syscall.Kill(-pgid, sig)
	}
}

// groupAlive reports whether any process is left in the group pgid.
// Zombies do not count: an init that is slow to reap orphans (as in some
// containers) leaves them in the group after they are dead.
func groupAlive(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	if err := syscall.Kill(-pgid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return liveMembers(pgid)
}

// exitStatus is the exit code of a finished command: its status, or
// minus the signal that killed it, with the signal's name.
func exitStatus(c *sandbox.Cmd) (int, string) {
	code, sig := c.ExitStatus()
	if sig != 0 {
		return -int(sig), unix.SignalName(sig)
	}
	return code, ""
}
