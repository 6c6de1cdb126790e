package sandbox

import (
	"encoding/json"
	"errors"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// serveWarm is a warm box's second stage: restricted as a command would
// be (on the one thread it then starts every command from, which the
// commands inherit), it reports on statusFD, closes it, and runs the
// server's commands one at a time until the server hangs up.
//
// It is the subreaper of what the commands leave behind, and the box's
// PID namespace holds nothing but its supervisor, itself and the current
// command's processes: between two commands it kills everything it can
// signal, which is exactly what the last one left. A command can signal
// or stop the zygote (the same uid and Landlock domain): the supervisor
// then ends the box, and the server sees the command killed.
func serveWarm(cfg helperConfig) int {
	runtime.LockOSThread()
	closeOnExecAbove2()
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	// Caught here, so that the commands start with default actions.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGPIPE)
	status := os.NewFile(statusFD, "sandbox-stage")
	// The rules are made here, by the zygote: /proc/self would name its
	// own entries, not the commands'. The box's /proc is its own PID
	// namespace's, holding the box's processes only (the supervisor and
	// the zygote not dumpable, their details closed to the command), so
	// the commands may read it all.
	p := cfg.Policy
	p.ReadOnly = append(p.ReadOnly[:len(p.ReadOnly):len(p.ReadOnly)], "/proc")
	rep := restrictSelf(p, cfg.Box)
	b, _ := json.Marshal(statusLine{Report: &rep})
	status.Write(append(b, '\n'))
	status.Close()

	buf := make([]byte, maxWarmMessage)
	oob := make([]byte, unix.CmsgSpace(3*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(zygoteControlFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return 0 // the server hung up
		}
		fds := rightsOf(oob[:oobn])
		var req warmRequest
		if err := json.Unmarshal(buf[:n], &req); err != nil || len(fds) != 3 || len(req.Args) == 0 {
			closeAll(fds)
			if !reply(warmReply{ExecError: "sandbox: a malformed request to the warm box"}, -1) {
				return 0
			}
			continue
		}
		if req.Dir != "" {
			// The child's chdir failing would read as the program missing.
			if _, err := os.Stat(req.Dir); err != nil {
				closeAll(fds)
				if !reply(warmReply{ExecError: "sandbox helper: the working directory " + req.Dir + " is not in the box: " + err.Error()}, -1) {
					return 0
				}
				continue
			}
		}
		pid, pidfd, err := startFromZygote(req, fds)
		closeAll(fds)
		if err != nil {
			if !reply(warmReply{ExecError: "exec " + req.Path + ": " + err.Error()}, -1) {
				return 0
			}
			continue
		}
		ok := reply(warmReply{Started: true}, pidfd)
		if pidfd >= 0 {
			unix.Close(pidfd)
		}
		st := awaitCommand(pid)
		if !ok || !reply(warmReply{Exit: &st}, -1) {
			return 0
		}
	}
}

// startFromZygote starts a command in a session of its own, on the
// descriptors the server sent (its terminal as the controlling one).
func startFromZygote(req warmRequest, fds []int) (pid, pidfd int, err error) {
	pidfd = -1
	attr := &syscall.ProcAttr{
		Dir:   req.Dir,
		Env:   req.Env,
		Files: []uintptr{uintptr(fds[0]), uintptr(fds[1]), uintptr(fds[2])},
		Sys:   &syscall.SysProcAttr{Setsid: true, Setctty: req.TTY, Ctty: 0, PidFD: &pidfd},
	}
	pid, err = syscall.ForkExec(req.Path, req.Args, attr)
	return pid, pidfd, err
}

// awaitCommand reaps until the command has exited, then gives what it
// left Linger to end by itself before ending the rest; it returns how
// the command ended.
func awaitCommand(pid int) exitStatus {
	var ws syscall.WaitStatus
	for {
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if err != nil && !errors.Is(err, syscall.EINTR) {
			ws = 0
			break
		}
		if got == pid {
			break
		}
	}
	lingerThenEnd(endAllInBox)
	if ws.Signaled() {
		return exitStatus{Code: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
	}
	return exitStatus{Code: ws.ExitStatus()}
}

// endAllInBox kills every process of the box but its supervisor (the
// namespace's first process, which kill(-1) spares) and the zygote, and
// reaps them: all are the zygote's descendants, and every orphan among
// them comes to it.
func endAllInBox() {
	for {
		syscall.Kill(-1, syscall.SIGKILL)
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(-1, &ws, 0, nil); errors.Is(err, syscall.ECHILD) {
			return
		}
	}
}

// reply sends a message to the server, with a descriptor unless fd < 0;
// false if the server is gone.
func reply(r warmReply, fd int) bool {
	b, _ := json.Marshal(r)
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	for {
		err := unix.Sendmsg(zygoteControlFD, b, oob, nil, 0)
		if !errors.Is(err, syscall.EINTR) {
			return err == nil
		}
	}
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
