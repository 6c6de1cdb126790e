package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// supervise starts the command (under Landlock through the restricting
// second stage), reaps every process that comes to it, and when the
// command ends reports its status and returns the helper's exit code.
// Leaving ends the command's descendants: the kernel kills a PID
// namespace with its first process, and outside one the supervisor kills
// what it inherited as a subreaper.
func supervise(cfg helperConfig, argv, env []string) int {
	closeOnExecAbove2()
	status := os.NewFile(statusFD, "sandbox-status")
	send := func(l statusLine) {
		b, _ := json.Marshal(l)
		status.Write(append(b, '\n'))
	}
	// The supervisor is in the command's process group: the signals the
	// server sends the group (INT, TERM, HUP on kill_session, a timeout,
	// a terminal's ^C) are for the command, which gets its own copy.
	// Handling them here keeps the supervisor alive until the command is
	// gone, and makes the command start with their default actions even
	// if the server was started ignoring them (nohup).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)

	// In a PID namespace of its own the supervisor is process 1: leaving
	// kills the rest, and the namespace gets a /proc of its own (mounted
	// here, before the second stage's Landlock, which forbids mounts).
	// Otherwise orphans come to it as a subreaper, and it kills them
	// itself.
	if cfg.Box != nil {
		// The command's user namespace is nested in this one: it could
		// not ptrace the supervisor, and a non-dumpable one not even
		// read its /proc entries.
		unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
		if err := buildBox(cfg.Box); err != nil {
			send(statusLine{Report: &Report{Box: "sealed", Containment: "pid-namespace"}})
			send(statusLine{ExecError: "sandbox helper: building the box: " + err.Error()})
			return 126
		}
	} else if os.Getpid() == 1 {
		if err := mountOwnProc(); err != nil {
			send(statusLine{Report: &Report{Containment: "pid-namespace"}})
			send(statusLine{ExecError: "sandbox helper: " + err.Error()})
			return 126
		}
	}
	cleanUp := func() {}
	containment := "pid-namespace"
	if os.Getpid() != 1 {
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
		containment = "subreaper"
		cleanUp = killDescendants
	}

	child, rep, err := startCommand(cfg, argv, env)
	rep.Containment = containment
	if cfg.Box != nil {
		rep.Box = "sealed"
	}
	send(statusLine{Report: &rep})
	if err != nil {
		send(statusLine{ExecError: err.Error()})
		return 126
	}
	send(statusLine{Started: true})

	go func() { // the server's death ends everything, after the policy's Finish
		var b [1]byte
		for {
			if _, err := syscall.Read(lifelineFD, b[:]); err == nil || !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		// Meanwhile the command may end: the supervisor then returns as
		// ever (a warm box's zygote, its server gone, exits once its
		// command has ended), and this wait with it.
		time.Sleep(cfg.Policy.Finish)
		cleanUp()
		os.Exit(137)
	}()

	if cfg.Warm {
		return superviseZygote(child)
	}
	var ws syscall.WaitStatus
	for {
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err != nil && !errors.Is(err, syscall.EINTR) {
			ws = 0
			break
		}
		if pid == child {
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

// startCommand starts the command: directly when the policy asks for no
// Landlock, else through the restricting stage, whose report (up to end
// of file, which is its exec of the command) it returns.
func startCommand(cfg helperConfig, argv, env []string) (pid int, rep Report, err error) {
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	if !cfg.Policy.Landlock {
		p, err := os.StartProcess(cfg.Path, argv, &os.ProcAttr{Env: env, Files: files})
		if err != nil {
			return 0, Report{Landlock: "off"}, err
		}
		return p.Pid, Report{Landlock: "off"}, nil
	}
	// This binary, even if its file was replaced since the server started.
	const exe = "/proc/self/exe"
	b, _ := json.Marshal(cfg)
	r, w, err := os.Pipe()
	if err != nil {
		return 0, Report{}, err
	}
	attr := &os.ProcAttr{
		Env:   append(env[:len(env):len(env)], helperEnv+"="+restrictMagic),
		Files: append(files, w),
	}
	if cfg.Box != nil {
		attr.Sys = commandAttr(cfg.Box)
	}
	if cfg.Warm {
		attr.Files = append(attr.Files, os.NewFile(controlFD, "warm-box-zygote"))
	}
	p, err := os.StartProcess(exe, append([]string{"sudocode-sandbox-restrict", string(b)}, argv...), attr)
	w.Close()
	if err != nil {
		r.Close()
		return 0, Report{}, err
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var l statusLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		if l.Report != nil {
			rep = *l.Report
		}
		if l.ExecError != "" {
			err = errors.New(l.ExecError)
		}
	}
	if err == nil && rep.Landlock == "" {
		err = errors.New("the sandbox's restricting stage exited before starting the command")
	}
	if err != nil {
		var ws syscall.WaitStatus
		syscall.Wait4(p.Pid, &ws, 0, nil)
		return 0, rep, err
	}
	return p.Pid, rep, nil
}

// superviseZygote is a warm box's supervisor once its zygote runs: it
// reaps whatever comes to it, and ends the box (the first process of its
// PID namespace, it takes everything along) when the zygote exits or is
// stopped: a command that stopped it would otherwise hold the box.
func superviseZygote(zygote int) int {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WUNTRACED, nil)
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return 0
		}
		if pid == zygote {
			return 0
		}
	}
}

// restrictAndExec is the second stage: it restricts itself (on the one
// thread it then execs from, which the command inherits), reports on
// statusFD (closed by the exec) and execs the command.
func restrictAndExec(cfg helperConfig, argv, env []string) int {
	runtime.LockOSThread()
	closeOnExecAbove2()
	status := os.NewFile(statusFD, "sandbox-stage")
	send := func(l statusLine) {
		b, _ := json.Marshal(l)
		status.Write(append(b, '\n'))
	}
	// Default actions for the signals the server sends, whatever the
	// server's own dispositions were (exec resets handled ones).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGHUP)
	rep := restrictSelf(cfg.Policy, cfg.Box)
	send(statusLine{Report: &rep})
	err := syscall.Exec(cfg.Path, argv, env)
	send(statusLine{ExecError: "exec " + cfg.Path + ": " + err.Error()})
	return 126
}

// closeOnExecAbove2 marks every descriptor but stdin, stdout and stderr
// close-on-exec: the helper's own (status, lifeline), and any the server
// inherited without the flag from whatever started it, so none reaches
// the command.
func closeOnExecAbove2() {
	const closeRangeCloexec = 1 << 2 // CLOSE_RANGE_CLOEXEC, Linux 5.11
	if unix.CloseRange(3, ^uint(0), closeRangeCloexec) == nil {
		return
	}
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// Linger is how long what a command left running may go on after the
// command exits, so that output it is about to write is not cut off;
// then it is killed.
const Linger = 200 * time.Millisecond

// lingerThenEnd reaps what ends by itself within Linger (every orphan
// comes to the supervisor) and then ends the rest; it returns at once
// when nothing is left.
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

// killDescendants ends every process left below a subreaper supervisor:
// what the command started and left behind was reparented to it, so
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
