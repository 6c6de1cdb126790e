package procs

import (
	"context"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/sudocode/sudocode/internal/sandbox"
	"github.com/sudocode/sudocode/internal/workspace"
)

// session is one command: its process group, its output buffers and its
// state. Fields under mu change as the command runs; changed is closed
// (and replaced) at every change, waking the calls waiting on it.
type session struct {
	m          *Manager
	id         string
	owner      string // the client that started it (WithOwner)
	tty        bool
	pid        int // the leader's pid, which is the group's id
	cmd        *sandbox.Cmd
	files      []*os.File  // the server's ends: output readers, the tty master, stdin
	stdin      *os.File    // a tty's master; nil for pipes (written once, then closed)
	writes     chan []byte // what write_stdin sends to a tty, in order
	timer      *time.Timer // the deadline
	finishedCh chan struct{}

	mu          sync.Mutex
	changed     chan struct{}
	out, errs   ring
	openStreams int
	stdinOpen   bool
	reaped      bool // the leader has exited: exitCode and signal are set
	ended       bool // reaped and its output drained
	exitCode    int
	signal      string
	timedOut    bool
	killed      bool
	terminating bool // a termination is under way
	groupGone   bool // nothing of the process group is left (or it was SIGKILLed)
	held        bool // reachable: by the exec_command call starting it, then by its id
	finished    bool
	lastUse     time.Time
	endedAt     time.Time
}

// notify wakes the waiters; s.mu is held.
func (s *session) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// wait blocks until cond (evaluated under s.mu) holds, until passes or
// ctx ends, and reports whether cond held.
func (s *session) wait(ctx context.Context, until time.Time, cond func() bool) bool {
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return true
		}
		d := time.Until(until)
		if d <= 0 {
			return false
		}
		t := time.NewTimer(d)
		select {
		case <-ch:
			t.Stop()
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		}
	}
}

// settle waits for a command whose deadline has passed to die, so that
// the answer carries its exit status (bounded: SIGKILL follows SIGTERM).
func (s *session) settle(ctx context.Context) {
	s.mu.Lock()
	timedOut := s.timedOut && !s.ended
	s.mu.Unlock()
	if timedOut {
		s.wait(ctx, time.Now().Add(settleTime), func() bool { return s.ended })
	}
}

// pump copies one stream into its ring until the stream ends.
func (s *session) pump(f *os.File, r *ring) {
	buf := make([]byte, 64<<10)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			s.mu.Lock()
			r.write(buf[:n])
			s.notify()
			s.mu.Unlock()
		}
		if err != nil { // EOF; EIO from a tty master once no one holds the terminal
			s.mu.Lock()
			r.eof = true
			s.openStreams--
			s.notify()
			s.mu.Unlock()
			return
		}
	}
}

// reap waits for the leader, records how it ended, drains the output
// briefly (without waiting for grandchildren that keep the pipes open)
// and marks the session ended.
func (s *session) reap() {
	s.cmd.Wait()
	code, sig := exitStatus(s.cmd)
	s.mu.Lock()
	s.reaped, s.exitCode, s.signal = true, code, sig
	if s.stdin != nil {
		s.stdinOpen = false
	}
	s.notify()
	s.mu.Unlock()
	s.wait(context.Background(), time.Now().Add(drainTime), func() bool { return s.openStreams == 0 })
	alive := groupAlive(s.pid)
	s.mu.Lock()
	s.ended = true
	s.endedAt = time.Now()
	if !alive && !s.terminating {
		s.groupGone = true
	}
	s.notify()
	s.mu.Unlock()
	if !alive {
		s.timer.Stop()
	}
	s.maybeFinish()
}

// onDeadline enforces timeout_ms: a command still running has timed out;
// its group (or what the command left running in it) is terminated.
func (s *session) onDeadline() {
	s.mu.Lock()
	if !s.reaped {
		s.timedOut = true
		s.notify()
	}
	s.mu.Unlock()
	s.terminate(syscall.SIGTERM)
}

// terminate sends sig to the process group and, if anything of it is
// still there a second later, SIGKILL; then the group counts as gone.
func (s *session) terminate(sig syscall.Signal) {
	s.mu.Lock()
	if s.groupGone {
		s.mu.Unlock()
		return
	}
	again := s.terminating
	s.terminating = true
	s.mu.Unlock()
	signalGroup(s.pid, sig)
	if again {
		return // an escalation is already under way
	}
	go func() {
		gone := func() bool {
			s.mu.Lock()
			reaped := s.reaped
			s.mu.Unlock()
			return reaped && !groupAlive(s.pid)
		}
		if !poll(killGrace, gone) {
			signalGroup(s.pid, syscall.SIGKILL)
			poll(settleTime, gone)
		}
		s.mu.Lock()
		s.groupGone = true
		s.mu.Unlock()
		s.timer.Stop()
		s.maybeFinish()
	}()
}

// poll checks cond every 20 ms for up to d.
func poll(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// unlist marks a session as no longer reachable.
func (s *session) unlist() {
	s.mu.Lock()
	s.held = false
	s.mu.Unlock()
	s.maybeFinish()
}

// maybeFinish releases a session nobody can reach whose command is over,
// group included: its files are closed and the manager forgets it.
func (s *session) maybeFinish() {
	s.mu.Lock()
	done := !s.held && s.ended && s.groupGone && !s.finished
	if done {
		s.finished = true
	}
	s.mu.Unlock()
	if !done {
		return
	}
	s.timer.Stop()
	close(s.finishedCh) // stops the tty writer
	for _, f := range s.files {
		f.Close()
	}
	s.m.mu.Lock()
	delete(s.m.live, s)
	s.m.mu.Unlock()
}

// send queues chars for a tty's stdin.
func (s *session) send(ctx context.Context, b []byte, until time.Time) error {
	t := time.NewTimer(max(time.Until(until), 100*time.Millisecond))
	defer t.Stop()
	select {
	case s.writes <- b:
		return nil
	case <-s.finishedCh:
	case <-t.C:
	case <-ctx.Done():
	}
	return workspace.Errorf("SESSION_CLOSED", map[string]any{"session_id": s.id},
		"session %s is not reading its stdin: write not delivered", s.id)
}

// writer feeds a tty's stdin from the queue until the session finishes.
func (s *session) writer() {
	for {
		select {
		case b := <-s.writes:
			if _, err := s.stdin.Write(b); err != nil {
				s.mu.Lock()
				s.stdinOpen = false
				s.notify()
				s.mu.Unlock()
			}
		case <-s.finishedCh:
			return
		}
	}
}

// snapshot reads the unread output and describes the command.
func (s *session) snapshot(maxBytes int) *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := &Snapshot{SessionID: s.id, TimedOut: s.timedOut}
	switch {
	case s.timedOut:
		snap.Status = "timeout"
	case s.ended:
		snap.Status = "exited"
	default:
		snap.Status = "running"
	}
	if s.ended || (s.timedOut && s.reaped) {
		snap.Ended, snap.ExitCode, snap.Signal = true, s.exitCode, s.signal
	}
	snap.Stdout = readStream("stdout", &s.out, maxBytes, &snap.Warnings)
	if !s.tty {
		snap.Stderr = readStream("stderr", &s.errs, maxBytes, &snap.Warnings)
	}
	return snap
}

// closedSnapshot is the state of a session write_stdin could not write
// to, without reading its output.
func (s *session) closedSnapshot() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := &Snapshot{SessionID: s.id, TimedOut: s.timedOut, Status: "running"}
	switch {
	case s.timedOut:
		snap.Status = "timeout"
	case s.reaped:
		snap.Status = "exited"
	}
	if s.reaped {
		snap.Ended, snap.ExitCode, snap.Signal = true, s.exitCode, s.signal
	}
	return snap
}
