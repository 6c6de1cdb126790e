package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// StartTimeout bounds the helper's start-up: its report and the start of
// the command.
const StartTimeout = 10 * time.Second

// Cmd is a command to run in the sandbox. The caller sets up Cmd as for
// any command (Path, Args, Env, Dir, stdio, SysProcAttr for a session or
// process group); Start runs it under the helper instead, and the
// exec.Cmd's Process is then the helper, whose process group and session
// are the command's.
type Cmd struct {
	*exec.Cmd
	Policy Policy

	// Warm, if set, runs the command in one of its warm boxes when the
	// policy has a box: a fork and exec instead of building one. The
	// exec.Cmd's Process is then nil; Pid is the command's.
	Warm *Warm

	report  Report
	status  *bufio.Reader
	statusR *os.File
	exit    *exitStatus
	pid     int           // a warm command's
	done    chan struct{} // closed when a warm command has ended
}

// Command returns a Cmd running c under p.
func Command(c *exec.Cmd, p Policy) *Cmd { return &Cmd{Cmd: c, Policy: p} }

// Report is how the sandbox was set up; valid after Start.
func (c *Cmd) Report() Report { return c.report }

// Start starts the command under the helper and waits until the helper
// has restricted itself and started the command (or failed to). Where no
// helper can run, the command starts directly and the report says so.
func (c *Cmd) Start() error {
	exe := helperExe()
	if exe == "" {
		c.report = Report{Landlock: "unavailable", Reason: unavailableReason, Containment: "none"}
		if !c.Policy.Landlock {
			c.report.Landlock = "off"
		}
		return c.Cmd.Start()
	}
	if !c.Policy.Landlock {
		return c.startHelper(nil, Report{Box: "off"})
	}
	if c.Warm != nil {
		if err := c.startWarm(c.Warm); err != errNotWarm {
			return err
		}
	}
	box, reason := newBox(c.Policy)
	if box == nil {
		return c.startHelper(nil, Report{Box: "unavailable", BoxReason: reason})
	}
	return c.startHelper(box, Report{})
}

// Pid is the command's process id, which leads its process group when
// the caller asked for a session or group; valid after Start. For a cold
// command it is the helper's, in the same group.
func (c *Cmd) Pid() int {
	if c.done != nil {
		return c.pid
	}
	return c.Process.Pid
}

// startHelper starts the helper, with box unless nil; boxReport is what
// the report says of the box when the helper does not.
func (c *Cmd) startHelper(box *boxConfig, boxReport Report) error {
	exe := helperExe()
	hc := helperConfig{Policy: c.Policy, Path: c.Path, Box: box}
	cfg, err := json.Marshal(hc)
	if err != nil {
		return err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return err
	}
	life, err := lifeline()
	if err != nil {
		statusR.Close()
		statusW.Close()
		return err
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	c.Cmd.Path = exe
	c.Cmd.Args = append([]string{"sudocode-sandbox", string(cfg)}, c.Args...)
	c.Cmd.Env = append(append(env[:len(env):len(env)], raceEnv...), helperEnv+"="+supervisorMagic)
	// statusFD and lifelineFD, whatever ExtraFiles the caller had (none).
	c.Cmd.ExtraFiles = []*os.File{statusW, life}
	err = startContained(c.Cmd, hc.Box)
	statusW.Close()
	if err != nil {
		statusR.Close()
		return err
	}
	c.statusR = statusR
	c.status = bufio.NewReader(statusR)
	statusR.SetReadDeadline(time.Now().Add(StartTimeout))
	defer statusR.SetReadDeadline(time.Time{})
	for {
		var l statusLine
		line, err := c.status.ReadBytes('\n')
		if err == nil {
			err = json.Unmarshal(line, &l)
		}
		if err != nil {
			c.Process.Kill()
			c.Cmd.Wait()
			statusR.Close()
			return fmt.Errorf("sandbox helper: exited before starting the command")
		}
		switch {
		case l.Report != nil:
			c.report = *l.Report
			if c.report.Box == "" {
				c.report.Box, c.report.BoxReason = boxReport.Box, boxReport.BoxReason
			}
		case l.ExecError != "":
			c.Cmd.Wait()
			statusR.Close()
			return errors.New(l.ExecError)
		case l.Started:
			return nil
		}
	}
}

// Kill ends the command at once, with everything it started: a cold
// command's helper (the box goes with it), a warm command's process
// group (its box's zygote ends the rest before Wait returns).
func (c *Cmd) Kill() error {
	if c.done != nil {
		if c.pid > 0 {
			return syscall.Kill(-c.pid, syscall.SIGKILL)
		}
		return nil
	}
	return c.Process.Kill()
}

// Wait waits for the helper, which ends when the command and everything
// it started have ended.
func (c *Cmd) Wait() error {
	if c.done != nil {
		<-c.done
		if c.exit == nil { // its box was ended under it
			c.exit = &exitStatus{Code: 128 + int(syscall.SIGKILL), Signal: int(syscall.SIGKILL)}
		}
		if c.exit.Code == 0 && c.exit.Signal == 0 {
			return nil
		}
		return &ExitError{Code: c.exit.Code, Signal: syscall.Signal(c.exit.Signal)}
	}
	err := c.Cmd.Wait()
	if c.statusR != nil {
		for {
			var l statusLine
			line, rerr := c.status.ReadBytes('\n')
			if rerr != nil {
				break
			}
			if json.Unmarshal(line, &l) == nil && l.Exit != nil {
				c.exit = l.Exit
			}
		}
		c.statusR.Close()
	}
	if c.exit != nil {
		if c.exit.Code == 0 && c.exit.Signal == 0 {
			return nil
		}
		return &ExitError{Code: c.exit.Code, Signal: syscall.Signal(c.exit.Signal)}
	}
	return err
}

// ExitStatus is how the command ended, after Wait: its exit code, or the
// signal that killed it (with code -1). A helper killed before it could
// tell (SIGKILL to the group) counts as the command killed the same way.
func (c *Cmd) ExitStatus() (code int, sig syscall.Signal) {
	if c.exit != nil {
		if c.exit.Signal != 0 {
			return -1, syscall.Signal(c.exit.Signal)
		}
		return c.exit.Code, 0
	}
	st := c.ProcessState
	if st == nil {
		return -1, 0
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal()
	}
	return st.ExitCode(), 0
}

// ExitError is a command that exited non-zero or was killed.
type ExitError struct {
	Code   int
	Signal syscall.Signal
}

func (e *ExitError) Error() string {
	if e.Signal != 0 {
		return "signal: " + e.Signal.String()
	}
	return fmt.Sprintf("exit status %d", e.Code)
}
