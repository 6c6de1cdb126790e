// Package procs runs exec_command's commands (docs/coding-tools.md#exec_command
// to #kill_session, and docs/sandbox.md): /bin/sh -c in a new process group,
// with a scrubbed environment, under Landlock when the kernel has it, on pipes
// or a pseudo-terminal, and keeps the ones still running as sessions that
// write_stdin polls and feeds and kill_session ends. Every command has a
// server-side deadline; a timeout, a kill, a cancellation and Close end the
// command's whole process group.
package procs

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/sudocode/sudocode/internal/sandbox"
	"github.com/sudocode/sudocode/internal/workspace"
)

// Timings of the profile.
const (
	drainTime  = 200 * time.Millisecond // reading the pipes after the command exits
	killGrace  = time.Second            // from SIGTERM (or INT) to SIGKILL
	gatherTime = 50 * time.Millisecond  // collecting the rest of an answer once it starts
	settleTime = 3 * time.Second        // most a call waits for a timed-out command to die
	// DefaultMaxSessions bounds the sessions kept for write_stdin and
	// kill_session, running and exited.
	DefaultMaxSessions = 64
)

// Options configure a Manager.
type Options struct {
	Root        string   // canonical workspace root, writable in the sandbox
	AllowRoots  []string // extra directories commands may read and execute (CODING_TOOLS_MCP_EXEC_ALLOW_ROOTS)
	Dangerous   bool     // pass caller environment variables unfiltered; network allowed
	Network     bool     // allow TCP bind and connect (--allow-network)
	MaxSessions int      // sessions kept; DefaultMaxSessions when 0
	// StateDir holds the commands' private home/ and tmp/; StateDir(Root)
	// when empty.
	StateDir string
}

// Manager starts commands and keeps their sessions.
type Manager struct {
	opts      Options
	getenv    func(string) (string, bool)
	tools     sandbox.Toolchains // what the server's PATH grants
	toolPaths []string           // and the paths Landlock grants for it
	home      string             // the commands' private HOME
	tmp       string             // and TMPDIR
	ident     gitIdentity        // the user's git name and email, for the private home
	// noLandlock makes the helper behave as on a kernel without
	// Landlock (tests).
	noLandlock bool
	// noBox makes it behave as on a kernel that refuses the sealed box.
	noBox bool
	// warm keeps a box built between commands: a command is then a fork
	// and exec in it, not a new box.
	warm *sandbox.Warm

	mu       sync.Mutex
	sessions map[string]*session   // running when returned: what write_stdin and kill_session find
	live     map[*session]struct{} // every command whose files or process group may still be in use
	closed   bool
}

// New returns a Manager for a workspace. An allowed root that would
// expose one of the user's credential stores is left out (servers refuse
// to start with one: CheckAllowRoots).
func New(opts Options) *Manager {
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	var allow []string
	for _, d := range opts.AllowRoots {
		if abs, err := filepath.Abs(d); err == nil {
			if canon, err := filepath.EvalSymlinks(abs); err == nil {
				allow = append(allow, canon)
			}
		}
	}
	userHome, _ := os.UserHomeDir()
	opts.AllowRoots = slices.DeleteFunc(allow, func(d string) bool { return sandbox.CheckAllowRoot(d, userHome) != nil })
	if opts.StateDir == "" {
		opts.StateDir = StateDir(opts.Root, os.LookupEnv)
	}
	m := &Manager{opts: opts, getenv: os.LookupEnv, sessions: map[string]*session{}, live: map[*session]struct{}{}, warm: sandbox.NewWarm()}
	m.home, m.tmp = filepath.Join(opts.StateDir, "home"), filepath.Join(opts.StateDir, "tmp")
	m.grantToolchains(os.Getenv("PATH"), userHome, os.LookupEnv)
	m.ident = userGitIdentity(os.LookupEnv)
	return m
}

// grantToolchains works out once, from the server's PATH and toolchain
// variables, what commands may read and execute of the toolchains: a
// command cannot change what the next one is granted.
func (m *Manager) grantToolchains(path, home string, getenv func(string) (string, bool)) {
	m.tools = sandbox.ToolchainsOf(sandbox.Host{Path: path, Home: home, Workspaces: []string{m.opts.Root}, Getenv: getenv})
	m.toolPaths = m.tools.LandlockPaths()
}

// CheckAllowRoots refuses extra roots (CODING_TOOLS_MCP_EXEC_ALLOW_ROOTS)
// that would expose one of the user's credential stores to commands.
func CheckAllowRoots(dirs []string) error {
	userHome, _ := os.UserHomeDir()
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		if c, err := filepath.EvalSymlinks(abs); err == nil {
			abs = c
		}
		if err := sandbox.CheckAllowRoot(abs, userHome); err != nil {
			return err
		}
	}
	return nil
}

// Request is one exec_command call, its arguments checked by the caller
// (workdir resolved, policy passed).
type Request struct {
	Cmd            string
	Dir            string // absolute working directory inside the workspace
	Env            map[string]string
	Stdin          string
	TTY            bool
	Timeout        time.Duration
	Yield          time.Duration
	MaxOutputBytes int
}

// Snapshot is a command's state and its output since the previous read.
type Snapshot struct {
	SessionID string
	Status    string // running, exited, timeout; kill_session: terminated or exited
	Ended     bool   // ExitCode and Signal are set
	ExitCode  int    // the exit status, or minus the number of the signal that killed it
	Signal    string // e.g. SIGTERM when a signal killed it
	TimedOut  bool
	Killed    bool // kill_session signalled a running command
	Stdout    Output
	Stderr    Output
	Warnings  []string
	Elapsed   time.Duration
}

// Start runs a command and waits for it as exec_command does: until it
// exits, its deadline passes (the group is then terminated) or the yield
// time is over; a tty command returns once it starts printing. A command
// still running becomes a session.
func (m *Manager) Start(ctx context.Context, req Request) (*Snapshot, error) {
	begin := time.Now()
	if _, _, err := privateDirs(m.opts.StateDir, m.ident); err != nil {
		return nil, workspace.Errorf("INTERNAL_ERROR", map[string]any{"state_dir": m.opts.StateDir},
			"could not create the commands' private home and temp directory under %s: %v", m.opts.StateDir, err)
	}
	env, warnings := environ(m.home, m.tmp, m.tools.Env, req.Env, m.opts.Dangerous, m.getenv)
	s, w, err := m.launch(req, env)
	if err != nil {
		return nil, err
	}
	s.owner = ownerOf(ctx)
	warnings = append(warnings, w...)
	yieldEnd := begin.Add(req.Yield)
	if req.TTY {
		s.wait(ctx, yieldEnd, func() bool { return s.ended || s.timedOut || s.out.unread() > 0 })
		s.wait(ctx, minTime(yieldEnd, time.Now().Add(gatherTime)), func() bool { return s.ended || s.timedOut })
	} else {
		s.wait(ctx, yieldEnd, func() bool { return s.ended || s.timedOut })
	}
	s.settle(ctx)
	snap := s.snapshot(req.MaxOutputBytes)
	if snap.Status == "running" {
		warnings = append(warnings, m.register(s)...)
	} else {
		snap.SessionID = ""
		s.unlist()
	}
	snap.Warnings = append(warnings, snap.Warnings...)
	snap.Elapsed = time.Since(begin)
	return snap, nil
}

// register lists a running session, pruning the oldest exited sessions
// (then the longest idle ones) past the limit.
func (m *Manager) register(s *session) (warnings []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for len(m.sessions) >= m.opts.MaxSessions {
		var victim *session
		var vEnded bool
		var vTime time.Time
		for _, o := range m.sessions {
			o.mu.Lock()
			ended, t := o.reaped, o.lastUse
			if ended {
				t = o.endedAt
			}
			o.mu.Unlock()
			if victim == nil || (ended && !vEnded) || (ended == vEnded && t.Before(vTime)) {
				victim, vEnded, vTime = o, ended, t
			}
		}
		delete(m.sessions, victim.id)
		state := "idle running"
		if vEnded {
			state = "exited"
		}
		warnings = append(warnings, fmt.Sprintf("session limit (%d) reached: removed the oldest %s session %s", m.opts.MaxSessions, state, victim.id))
		go func() {
			victim.terminate(syscall.SIGTERM)
			victim.unlist()
		}()
	}
	s.mu.Lock()
	s.lastUse = time.Now()
	s.mu.Unlock()
	m.sessions[s.id] = s
	return warnings
}

// get finds a listed session of owner.
func (m *Manager) get(owner, id string) *session {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.sessions[id]; s != nil && s.owner == owner {
		return s
	}
	return nil
}

// take finds a listed session of owner and unlists it.
func (m *Manager) take(owner, id string) *session {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[id]
	if s == nil || s.owner != owner {
		return nil
	}
	delete(m.sessions, id)
	return s
}

type ownerKey struct{}

// WithOwner tells the Manager who makes a call: a session belongs to the
// client that started it, and another client's write_stdin, kill_session
// or cancellation does not find it.
func WithOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

func ownerOf(ctx context.Context) string {
	o, _ := ctx.Value(ownerKey{}).(string)
	return o
}

func sessionNotFound(id, what string) error {
	return workspace.Errorf("SESSION_NOT_FOUND", map[string]any{"session_id": id},
		"unknown session %q: %s denied (it was not started by this server, or it was removed)", id, what)
}

// Write writes chars to a session's stdin (none: just polls) and waits
// for output as write_stdin does.
func (m *Manager) Write(ctx context.Context, id, chars string, yield time.Duration, maxBytes int) (*Snapshot, error) {
	s := m.get(ownerOf(ctx), id)
	if s == nil {
		return nil, sessionNotFound(id, "stdin access")
	}
	until := time.Now().Add(yield)
	s.mu.Lock()
	s.lastUse = time.Now()
	reaped, open := s.reaped, s.stdinOpen
	mark := s.out.total + s.errs.total
	s.mu.Unlock()
	if chars == "" {
		s.wait(ctx, until, func() bool { return s.ended || s.timedOut || s.out.unread()+s.errs.unread() > 0 })
	} else {
		switch {
		case reaped:
			return s.closedSnapshot(), workspace.Errorf("SESSION_CLOSED", map[string]any{"session_id": id},
				"session %s has exited: writing to its stdin is not possible", id)
		case !open:
			return s.closedSnapshot(), workspace.Errorf("SESSION_CLOSED", map[string]any{"session_id": id},
				"the stdin of session %s is closed (only tty sessions keep it open): write denied", id)
		}
		if err := s.send(ctx, []byte(chars), until); err != nil {
			return s.closedSnapshot(), err
		}
		s.wait(ctx, until, func() bool { return s.ended || s.timedOut || s.out.total+s.errs.total > mark })
		s.wait(ctx, minTime(until, time.Now().Add(gatherTime)), func() bool { return s.ended || s.timedOut })
	}
	s.settle(ctx)
	snap := s.snapshot(maxBytes)
	s.mu.Lock()
	s.lastUse = time.Now()
	s.mu.Unlock()
	return snap, nil
}

// Kill ends a session as kill_session does: a running command's group
// gets sig (escalated to SIGKILL after a second), the call waits up to
// wait for it, returns the unread output and forgets the session.
func (m *Manager) Kill(ctx context.Context, id string, sig syscall.Signal, wait time.Duration, maxBytes int) (*Snapshot, error) {
	s := m.take(ownerOf(ctx), id)
	if s == nil {
		return nil, sessionNotFound(id, "kill")
	}
	s.mu.Lock()
	running := !s.reaped
	if running {
		s.killed = true
	}
	s.mu.Unlock()
	if running {
		s.terminate(sig)
		s.wait(ctx, time.Now().Add(wait), func() bool { return s.ended })
	} else {
		// Exited: what it left running in its group goes too. Its
		// last output is in once the pipes are drained.
		s.terminate(sig)
		s.wait(ctx, time.Now().Add(drainTime+gatherTime), func() bool { return s.ended })
	}
	snap := s.snapshot(maxBytes)
	snap.Killed = running
	if running {
		snap.Status = "terminated"
	} else {
		snap.Status = "exited"
	}
	s.unlist()
	return snap, nil
}

// Cancel ends a session named by notifications/cancelled: SIGTERM to its
// group (SIGKILL a second later if needed), and forgets it.
func (m *Manager) Cancel(ctx context.Context, id string) bool {
	s := m.take(ownerOf(ctx), id)
	if s == nil {
		return false
	}
	s.terminate(syscall.SIGTERM)
	s.unlist()
	return true
}

// Close ends every command's process group (SIGTERM, then SIGKILL after
// a second) and the warm boxes, and refuses new commands.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	all := make([]*session, 0, len(m.live))
	for s := range m.live {
		all = append(all, s)
	}
	m.sessions = map[string]*session{}
	m.mu.Unlock()
	for _, s := range all {
		s.terminate(syscall.SIGTERM)
		s.unlist()
	}
	deadline := time.Now().Add(killGrace + settleTime)
	for _, s := range all {
		select {
		case <-s.finishedCh:
		case <-time.After(time.Until(deadline)):
		}
	}
	m.warm.Close()
}

// newID is a random URL-safe session id of 192 bits.
func newID() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
