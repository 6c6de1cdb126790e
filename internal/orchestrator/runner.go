package orchestrator

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/sandbox"
)

// stderrTail is how much of an agent's stderr is kept for error messages.
const stderrTail = 64 << 10

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// outcome is how a run ended.
type outcome struct {
	exitCode   int
	cancelled  bool
	stderr     string
	completion *agent.Event // the last completion event, if any
	lastText   string       // the last message text
	reason     string       // the last fatal error the agent reported: why a failed run failed
	denials    []Denial     // the tool calls the CLI refused
	sessionID  string
}

// Denial is a tool call the agent's CLI refused (its permission mode or
// sandbox): without it a run that could not write ends as a silent noop.
// Detail is what the call was about (its file or command) or the CLI's
// reason.
type Denial struct {
	Tool   string `json:"tool,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// run is one run of a task: its agent process, preceded on the task's
// first run by the project's setup command (see setupThenFollow).
type run struct {
	done     chan struct{} // closed when the run is fully finished
	mu       sync.Mutex
	cmd      *sandbox.Cmd // the current process; nil before the first
	pgid     int
	cancel   bool
	killOnce sync.Once
	// remote, set for a run on a worker of the fleet, asks its worker to
	// stop it; abandon, closed when the worker did not answer in time,
	// makes its follower record it cancelled without the worker's word;
	// stopFollow stops reading the run (Close), leaving it to its worker.
	remote     func()
	abandon    chan struct{}
	stopFollow context.CancelFunc
}

// attach makes cmd the run's current process. It refuses (false) once the
// run was cancelled: the caller then ends cmd itself.
func (r *run) attach(cmd *sandbox.Cmd) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel {
		return false
	}
	r.cmd, r.pgid = cmd, cmd.Process.Pid
	return true
}

// group is the current process group (0 before the first process).
func (r *run) group() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pgid
}

// signal sends sig to the current process group, if any.
func (r *run) signal(sig syscall.Signal) {
	if g := r.group(); g > 0 {
		_ = syscall.Kill(-g, sig)
	}
}

// abandon ends a process that attach refused, and its pipes.
func abandon(cmd *sandbox.Cmd, outR, errR *os.File) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	outR.Close()
	errR.Close()
	_ = cmd.Wait()
}

// startIn starts inv in dir with stdout and stderr on pipes and inv.Env
// as its whole environment (see agent.Environ), confined by p (an agent's
// box, or a repository command's): the supervisor leads the process
// group, and whatever the command starts ends with it, however it
// detached, when the task ends or the server dies.
func startIn(inv agent.Invocation, dir string, p sandbox.Policy) (*sandbox.Cmd, *os.File, *os.File, error) {
	if len(inv.Argv) == 0 {
		return nil, nil, nil, errors.New("the adapter returned an empty command line")
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, nil, err
	}
	cmd := exec.Command(inv.Argv[0], inv.Argv[1:]...)
	// exec.Command looks a bare name up on the process's PATH; the program
	// run is the one on the PATH it runs with, the user's (Options.Env).
	if !strings.ContainsRune(inv.Argv[0], filepath.Separator) {
		if p, err := agent.LookPath(inv.Argv[0], envMap(inv.Env)["PATH"]); err == nil {
			cmd.Path, cmd.Err = p, nil
		}
	}
	cmd.Dir = dir
	cmd.Env = inv.Env
	cmd.Stdin = strings.NewReader(inv.Stdin) // written, then closed
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sc := sandbox.Command(cmd, p)
	err = sc.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, nil, nil, err
	}
	return sc, outR, errR, nil
}

// terminate ends the run's whole process group: SIGTERM, then SIGKILL
// after grace. It returns once the run finished.
func (r *run) terminate(grace time.Duration) {
	r.mu.Lock()
	r.cancel = true
	r.mu.Unlock()
	r.killOnce.Do(func() {
		if r.remote != nil {
			r.remote()
			select {
			case <-r.done:
			case <-time.After(2 * grace):
				close(r.abandon)
			}
			return
		}
		r.signal(syscall.SIGTERM)
		select {
		case <-r.done:
			return
		case <-time.After(grace):
		}
		r.signal(syscall.SIGKILL)
	})
	<-r.done
}

func (r *run) cancelled() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cancel
}

// execute reads the started process to its end: stdout lines go through
// the parser, stderr lines become stderr events (and a tail kept for the
// error), all handed to emit one batch at a time. Once the leader exits,
// what is left of its process group is terminated so that no orphan holds
// the pipes open.
func (r *run) execute(outR, errR *os.File, parser agent.Parser, grace time.Duration, emit func([]agent.Event)) outcome {
	var o outcome
	r.mu.Lock()
	cmd, pgid := r.cmd, r.pgid
	r.mu.Unlock()
	var emitMu sync.Mutex
	emitLocked := func(evs []agent.Event) {
		emitMu.Lock()
		defer emitMu.Unlock()
		emit(evs)
	}
	tail := &tailBuffer{max: stderrTail}
	var wg sync.WaitGroup
	wg.Add(1)
	var stderrDenials []Denial // what the parser found on stderr (see agent.StderrReader)
	go func() {
		defer wg.Done()
		sr, _ := parser.(agent.StderrReader)
		readLines(io.TeeReader(errR, tail), func(line []byte) {
			now := time.Now()
			evs := []agent.Event{{Time: now, Kind: agent.KindStderr, Text: string(line)}}
			if sr != nil {
				evs = append(evs, sr.StderrLine(line, now)...)
			}
			for _, e := range evs {
				if e.Kind == agent.KindDenied {
					stderrDenials = append(stderrDenials, Denial{Tool: e.Tool, Detail: e.Text})
				}
			}
			emitLocked(evs)
		})
	}()
	waitErr := make(chan error, 1)
	leaderDone := make(chan struct{})
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		waitErr <- cmd.Wait()
		close(leaderDone)
	}()
	// Once the leader exited, what is left of its group (a dev server, a
	// shell) gets SIGTERM, and SIGKILL if it still holds the pipes after grace.
	go func() {
		<-leaderDone
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-finished:
		case <-time.After(grace):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}()
	observe := func(evs []agent.Event) {
		for i := range evs {
			e := &evs[i]
			switch e.Kind {
			case agent.KindCompletion:
				c := *e
				o.completion = &c
			case agent.KindMessage:
				if e.Text != "" && e.Data["reasoning"] != true {
					o.lastText = e.Text
				}
			case agent.KindError:
				if fatal, _ := e.Data["fatal"].(bool); fatal && e.Text != "" {
					o.reason = e.Text
				}
			case agent.KindDenied:
				o.denials = append(o.denials, Denial{Tool: e.Tool, Detail: e.Text})
			}
		}
		if len(evs) > 0 {
			emitLocked(evs)
		}
	}
	br := bufio.NewReaderSize(outR, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if n := len(line); n > 0 {
			if line[n-1] == '\n' {
				line = line[:n-1]
				if m := len(line); m > 0 && line[m-1] == '\r' {
					line = line[:m-1]
				}
				observe(parser.Line(line, time.Now()))
			} else if !r.cancelled() {
				// A last line without newline from a process that was not
				// killed is complete; after a kill it is truncated: drop it.
				observe(parser.Line(line, time.Now()))
			}
		}
		if err != nil {
			break
		}
	}
	outR.Close()
	wg.Wait()
	o.denials = append(o.denials, stderrDenials...)
	errR.Close()
	<-waitErr
	o.exitCode, _ = cmd.ExitStatus() // -1 when killed by a signal
	o.cancelled = r.cancelled()
	o.stderr = string(tail.b)
	observe(parser.Finish(o.exitCode, time.Now()))
	o.sessionID = parser.SessionID()
	return o
}

// readLines calls fn with each non-empty line read from r (without its
// line end; a last line without one too) until r ends. A line longer than
// 64 KiB comes in pieces of that size, so that a process writing endless
// bytes without a newline cannot fill the server's memory.
func readLines(r io.Reader, fn func([]byte)) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		chunk, err := br.ReadSlice('\n')
		if line := bytes.TrimRight(chunk, "\r\n"); len(line) > 0 {
			fn(bytes.Clone(line))
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}
