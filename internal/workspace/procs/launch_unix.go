//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package procs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/sudocode/sudocode/internal/workspace"
)

// helperTimeout bounds the helper's start-up (its report on statusFD).
const helperTimeout = 10 * time.Second

// launch starts a command: through the sandbox helper where there is one,
// in a new session and process group, on pipes or a pseudo-terminal.
func (m *Manager) launch(req Request, env []string) (s *session, warnings []string, err error) {
	s = &session{m: m, id: newID(), tty: req.TTY, changed: make(chan struct{}), finishedCh: make(chan struct{})}
	var cmd *exec.Cmd
	var statusR, statusW *os.File
	if exe := helperExe(); exe != "" {
		cfg := sandboxConfig(m.opts.Root, m.opts.AllowRoots, req.TTY)
		cfg.Disable = m.noLandlock
		b, _ := json.Marshal(cfg)
		cmd = &exec.Cmd{Path: exe, Args: []string{"sudocode-sandbox", string(b), shell, "-c", req.Cmd},
			Env: append(env[:len(env):len(env)], helperEnv+"="+helperMagic)}
		if statusR, statusW, err = os.Pipe(); err != nil {
			return nil, nil, spawnError(err)
		}
		cmd.ExtraFiles = []*os.File{statusW}
	} else {
		cmd = &exec.Cmd{Path: shell, Args: []string{shell, "-c", req.Cmd}, Env: env}
		reason := "Landlock exists only on Linux"
		if sandboxed {
			reason = "the server cannot re-execute its own binary to set it up"
		}
		warnings = append(warnings, landlockWarning(reason))
	}
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
			closeAll([]*os.File{statusR, statusW})
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
				closeAll([]*os.File{statusR, statusW})
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
	if statusW != nil {
		childEnds = append(childEnds, statusW)
	}

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		closeAll(childEnds)
		closeAll(readers)
		closeAll([]*os.File{stdinW, statusR})
		return nil, nil, workspace.Errorf("INTERNAL_ERROR", nil, "the server is shutting down: command not started")
	}
	err = cmd.Start()
	if err == nil {
		// Complete before Close can see it.
		s.cmd, s.pid = cmd, cmd.Process.Pid
		// The deadline counts from the shell's start: the helper's
		// start-up does not eat into it (and a short timeout cannot
		// kill the helper before it reports).
		deadline := req.Timeout
		if statusR != nil {
			deadline += helperTimeout
		}
		s.timer = time.AfterFunc(deadline, s.onDeadline)
		s.openStreams = len(readers)
		s.held = true // by the exec_command call until it decides
		m.live[s] = struct{}{}
	}
	m.mu.Unlock()
	closeAll(childEnds)
	if err != nil {
		closeAll(readers)
		closeAll([]*os.File{stdinW, statusR})
		return nil, nil, spawnError(err)
	}
	go s.pump(readers[0], &s.out)
	if len(readers) > 1 {
		go s.pump(readers[1], &s.errs)
	}
	go s.reap()

	if statusR != nil {
		report, err := readReport(statusR)
		statusR.Close()
		if err != nil || report.ExecError != "" {
			if err == nil {
				err = errors.New(report.ExecError)
			}
			s.terminate(syscall.SIGKILL)
			if stdinW != nil {
				stdinW.Close()
			}
			s.unlist()
			return nil, nil, spawnError(err)
		}
		s.timer.Reset(req.Timeout)
		if report.Landlock != "enforced" {
			warnings = append(warnings, landlockWarning(report.Reason))
		}
	}
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

// helperExe is the binary to run as the sandbox helper: this one, by
// /proc/self/exe (which works even if the file was replaced since), or by
// its path; "" where there is no helper.
var helperExe = sync.OnceValue(func() string {
	if !sandboxed {
		return ""
	}
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe"
	}
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return ""
})

// noEcho turns the terminal's echo off: what write_stdin sends is not
// repeated in the output (programs that edit lines, like readline, still
// show what they read).
func noEcho(tty *os.File) {
	if t, err := unix.IoctlGetTermios(int(tty.Fd()), getTermios); err == nil {
		t.Lflag &^= unix.ECHO | unix.ECHONL
		unix.IoctlSetTermios(int(tty.Fd()), setTermios, t)
	}
}

// readReport reads the helper's report up to EOF, which comes when the
// helper execs the shell (statusFD is close-on-exec) or dies.
func readReport(r *os.File) (helperReport, error) {
	r.SetReadDeadline(time.Now().Add(helperTimeout))
	b, err := io.ReadAll(r)
	if err != nil {
		return helperReport{}, fmt.Errorf("sandbox helper: %w", err)
	}
	var rep helperReport
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var line helperReport
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		if line.Landlock != "" {
			rep.Landlock, rep.ABI, rep.Reason = line.Landlock, line.ABI, line.Reason
		}
		if line.ExecError != "" {
			rep.ExecError = line.ExecError
		}
	}
	if rep.Landlock == "" && rep.ExecError == "" {
		return rep, errors.New("sandbox helper exited before starting the command")
	}
	return rep, nil
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

// exitStatus is the exit code of a finished process: its status, or
// minus the signal that killed it, with the signal's name.
func exitStatus(st *os.ProcessState) (int, string) {
	if st == nil {
		return -1, ""
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -int(ws.Signal()), unix.SignalName(ws.Signal())
	}
	return st.ExitCode(), ""
}
