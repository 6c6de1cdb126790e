package sandbox

import (
	"encoding/json"
	"errors"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// runHelper restricts the helper, starts the command as its child, reaps
// every process that comes to it, and when the command ends reports its
// status and returns the helper's exit code. Leaving ends the command's
// descendants: the kernel kills a PID namespace with its first process,
// and outside one the helper kills what it inherited as a subreaper.
func runHelper(cfg helperConfig, argv, env []string) int {
	runtime.LockOSThread()
	syscall.CloseOnExec(statusFD)
	syscall.CloseOnExec(lifelineFD)
	status := os.NewFile(statusFD, "sandbox-status")
	send := func(l statusLine) {
		b, _ := json.Marshal(l)
		status.Write(append(b, '\n'))
	}
	// The helper is in the command's process group: the signals the
	// server sends the group (INT, TERM, HUP on kill_session, a timeout,
	// a terminal's ^C) are for the command, which gets its own copy.
	// Handling them here keeps the helper alive until the command is
	// gone, and makes the command start with their default actions even
	// if the server was started ignoring them (nohup).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)

	// In a PID namespace of its own the helper is process 1: leaving
	// kills the rest. Otherwise orphans come to it as a subreaper, and it
	// kills them itself. The namespace's /proc is mounted before Landlock,
	// which forbids mounts.
	inNamespace := os.Getpid() == 1
	var procErr error
	if inNamespace {
		procErr = mountOwnProc()
	}
	rep := restrictSelf(cfg.Policy)
	cleanUp := func() {}
	if inNamespace {
		rep.Containment = "pid-namespace"
	} else {
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
		rep.Containment = "subreaper"
		cleanUp = killDescendants
	}
	send(statusLine{Report: &rep})
	if procErr != nil {
		send(statusLine{ExecError: "sandbox helper: " + procErr.Error()})
		return 126
	}

	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	child, err := os.StartProcess(cfg.Path, argv, &os.ProcAttr{Env: env, Files: files})
	if err != nil {
		send(statusLine{ExecError: err.Error()})
		return 126
	}
	send(statusLine{Started: true})

	go func() { // the server's death ends everything
		var b [1]byte
		for {
			if _, err := syscall.Read(lifelineFD, b[:]); err == nil || !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		cleanUp()
		os.Exit(137)
	}()

	var ws syscall.WaitStatus
	for {
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err != nil && !errors.Is(err, syscall.EINTR) {
			ws = 0
			break
		}
		if pid == child.Pid {
			break
		}
	}
	lingerThenEnd(cleanUp)
	st := exitStatus{Code: ws.ExitStatus()}
	if ws.Signaled() {
		st = exitStatus{Code: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
	}
	send(statusLine{Exit: &st})
	return st.Code
}

// Linger is how long what a command left running may go on after the
// command exits, so that output it is about to write is not cut off;
// then it is killed.
const Linger = 200 * time.Millisecond

// lingerThenEnd reaps what ends by itself within Linger (every orphan
// comes to the helper) and then ends the rest; it returns at once when
// nothing is left.
func lingerThenEnd(end func()) {
	deadline := time.Now().Add(Linger)
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.ECHILD) {
			return // nothing left
		}
		if pid > 0 {
			continue
		}
		if time.Now().After(deadline) {
			end()
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// killDescendants ends every process left below a subreaper helper: what
// the command started and left behind was reparented to the helper, so
// killing its children and reaping until none is left reaches all of
// them, however they detached.
func killDescendants() {
	for range 1000 {
		kids := children()
		if len(kids) == 0 {
			return
		}
		for _, pid := range kids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
