package procs

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/proctest"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace"
)

// newManager returns a manager over a fresh workspace, closed at the end
// of the test.
func newManager(t *testing.T, opts Options) *Manager {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts.Root = root
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	m := New(opts)
	t.Cleanup(m.Close)
	return m
}

// req is a request with the profile's defaults.
func req(cmd string, mods ...func(*Request)) Request {
	r := Request{Cmd: cmd, Timeout: 30 * time.Second, Yield: 5 * time.Second, MaxOutputBytes: 65536}
	for _, f := range mods {
		f(&r)
	}
	return r
}

func yield(d time.Duration) func(*Request)   { return func(r *Request) { r.Yield = d } }
func timeout(d time.Duration) func(*Request) { return func(r *Request) { r.Timeout = d } }
func tty(r *Request)                         { r.TTY = true }

func start(t *testing.T, m *Manager, r Request) *Snapshot {
	t.Helper()
	if r.Dir == "" {
		r.Dir = m.opts.Root
	}
	snap, err := m.Start(context.Background(), r)
	if err != nil {
		t.Fatalf("Start %q: %v", r.Cmd, err)
	}
	return snap
}

func wantStatus(t *testing.T, snap *Snapshot, status string) {
	t.Helper()
	if snap.Status != status {
		t.Fatalf("status %s, want %s: %+v", snap.Status, status, snap)
	}
	if (status == "running") != (snap.SessionID != "") && status != "terminated" {
		t.Fatalf("status %s with session id %q", status, snap.SessionID)
	}
}

func wantCode(t *testing.T, err error, code workspace.Code) *fault.Error {
	t.Helper()
	we, ok := err.(*fault.Error)
	if !ok || we.Reason != string(code) {
		t.Fatalf("error %v, want %s", err, code)
	}
	return we
}

// marker is a unique sleep argument, to find a command's processes.
func marker() string { return fmt.Sprintf("300.%d", rand.IntN(1e9)) }

func waitGone(t *testing.T, arg string, d time.Duration) {
	t.Helper()
	if d = testkit.Scale(d); !poll(d, func() bool { return proctest.WithArg(arg) == 0 }) {
		t.Fatalf("%d processes with %s still running after %v", proctest.WithArg(arg), arg, d)
	}
}

func waitRunning(t *testing.T, arg string, n int) {
	t.Helper()
	if !poll(testkit.Scale(5*time.Second), func() bool { return proctest.WithArg(arg) >= n }) {
		t.Fatalf("want %d processes with %s, have %d", n, arg, proctest.WithArg(arg))
	}
}

// sessionIDs lists the ids of the sessions write_stdin can reach.
func sessionIDs(m *Manager) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(maps.Keys(m.sessions))
}

// waitEnded waits until session id's command has ended, its output
// drained, as a call waiting on it would (on the session's change
// notifications), without taking its output.
func waitEnded(t *testing.T, m *Manager, id string) {
	t.Helper()
	s := m.get("", id)
	if s == nil {
		t.Fatalf("no session %s", id)
	}
	if !s.wait(context.Background(), time.Now().Add(10*time.Second), func() bool { return s.ended }) {
		t.Fatalf("session %s still running after 10s", id)
	}
}

func TestExited(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	begin := time.Now()
	s := start(t, m, req("echo out; echo err >&2; exit 3"))
	took := time.Since(begin)
	wantStatus(t, s, "exited")
	if !s.Ended || s.ExitCode != 3 || s.Signal != "" || s.TimedOut {
		t.Fatalf("%+v", s)
	}
	if s.Stdout.Text != "out\n" || s.Stderr.Text != "err\n" || s.Stdout.Truncated || s.Stderr.Truncated {
		t.Fatalf("stdout %q stderr %q", s.Stdout.Text, s.Stderr.Text)
	}
	// The command's time is within the call's, whatever the machine's speed.
	if s.Elapsed <= 0 || s.Elapsed > took {
		t.Fatalf("elapsed %v, in a call of %v", s.Elapsed, took)
	}
	if ids := sessionIDs(m); len(ids) != 0 {
		t.Fatalf("a finished command left sessions: %v", ids)
	}
}

func TestSignalled(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	s := start(t, m, req("echo before; kill -TERM $$; echo after"))
	wantStatus(t, s, "exited")
	if s.ExitCode != -15 || s.Signal != "SIGTERM" || s.Stdout.Text != "before\n" {
		t.Fatalf("%+v", s)
	}
}

func TestStdinIsWrittenThenClosed(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	s := start(t, m, req("cat; echo; echo eof", func(r *Request) { r.Stdin = "hello\nworld" }))
	wantStatus(t, s, "exited")
	if s.Stdout.Text != "hello\nworld\neof\n" {
		t.Fatalf("stdout %q", s.Stdout.Text)
	}
	// Without stdin, a reader gets EOF at once.
	s = start(t, m, req("cat; echo done"))
	if s.Status != "exited" || s.Stdout.Text != "done\n" {
		t.Fatalf("%+v", s)
	}
}

func TestWorkdir(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	sub := filepath.Join(m.opts.Root, "sub")
	os.Mkdir(sub, 0o755)
	s := start(t, m, req("pwd", func(r *Request) { r.Dir = sub }))
	if s.Stdout.Text != sub+"\n" {
		t.Fatalf("pwd %q", s.Stdout.Text)
	}
	_, err := m.Start(context.Background(), req("true", func(r *Request) { r.Dir = filepath.Join(m.opts.Root, "missing") }))
	wantCode(t, err, "INTERNAL_ERROR")
}

func TestRunningSessionPolled(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	s := start(t, m, req("echo start; sleep 0.4; echo end >&2", yield(100*time.Millisecond)))
	wantStatus(t, s, "running")
	if s.Ended || len(s.SessionID) < 22 {
		t.Fatalf("%+v", s)
	}
	id := s.SessionID
	// A poll returns as soon as there is output or an exit.
	stdout, stderr := s.Stdout.Text, ""
	for i := 0; i < 10; i++ {
		p, err := m.Write(context.Background(), id, "", 2*time.Second, 65536)
		if err != nil {
			t.Fatal(err)
		}
		stdout += p.Stdout.Text
		stderr += p.Stderr.Text
		if p.Status == "exited" {
			if p.ExitCode != 0 || !p.Ended {
				t.Fatalf("%+v", p)
			}
			break
		}
	}
	if stdout != "start\n" || stderr != "end\n" {
		t.Fatalf("polled output %q %q", stdout, stderr)
	}
	// Exited sessions stay readable, with nothing new.
	p, err := m.Write(context.Background(), id, "", 0, 65536)
	if err != nil || p.Status != "exited" || p.Stdout.Text != "" {
		t.Fatalf("%+v %v", p, err)
	}
	// Writing to it, or to a non-tty session's closed stdin, fails.
	_, err = m.Write(context.Background(), id, "x", 0, 65536)
	wantCode(t, err, "SESSION_CLOSED")
	s = start(t, m, req("sleep 5", yield(0)))
	wantStatus(t, s, "running")
	_, err = m.Write(context.Background(), s.SessionID, "x", 0, 65536)
	wantCode(t, err, "SESSION_CLOSED")
	_, err = m.Write(context.Background(), "no-such-session", "", 0, 65536)
	wantCode(t, err, "SESSION_NOT_FOUND")
}

func TestYieldZeroReturnsAtOnce(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	// The command runs for minutes: still running, the call returned at
	// once rather than at its end.
	s := start(t, m, req("sleep "+marker(), yield(0)))
	wantStatus(t, s, "running")
}

func TestTimeoutWithinCall(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	mk := marker()
	// Ended by the deadline within the call, not by its own end: it had
	// started, never got to its last line, and took SIGTERM.
	s := start(t, m, req("echo started; sleep "+mk+" & sleep "+mk+"; echo never", timeout(300*time.Millisecond)))
	wantStatus(t, s, "timeout")
	if !s.TimedOut || !s.Ended || s.ExitCode != -15 || s.Signal != "SIGTERM" || s.Stdout.Text != "started\n" {
		t.Fatalf("%+v", s)
	}
	waitGone(t, mk, 2*time.Second)
}

// TestTimeoutEnforcedWithoutPolling: a command's deadline ends it (and
// what it started) with no call waiting on it. The test must see the
// command running, then both sleeps, before the deadline: 400 ms left that
// window too small for a loaded machine under -race (the status already
// "timeout", or the sleeps gone before they were seen), so the deadline is
// 3 s; how late it fires is bounded by the wait for the sleeps to go, not
// by a separate clock check.
func TestTimeoutEnforcedWithoutPolling(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	mk := marker()
	s := start(t, m, req("sleep "+mk+" & sleep "+mk, timeout(3*time.Second), yield(0)))
	wantStatus(t, s, "running")
	waitRunning(t, mk, 2)
	waitGone(t, mk, 3*time.Second+killGrace+settleTime)
	p, err := m.Write(context.Background(), s.SessionID, "", time.Second, 65536)
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != "timeout" || !p.TimedOut || p.ExitCode != -15 || p.Signal != "SIGTERM" {
		t.Fatalf("%+v", p)
	}
}

func TestTimeoutEscalatesToKill(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	mk := marker()
	// The shell notes SIGTERM and goes on, until SIGKILL: SIGTERM came
	// first, and the shell outlived it.
	s := start(t, m, req("trap 'echo got TERM' TERM; sleep "+mk+" & wait; sleep "+mk+" & wait; echo survived", timeout(200*time.Millisecond)))
	wantStatus(t, s, "timeout")
	if s.ExitCode != -9 || s.Signal != "SIGKILL" || s.Stdout.Text != "got TERM\n" {
		t.Fatalf("%+v", s)
	}
	waitGone(t, mk, time.Second)
}

func TestLeftoversEndWithTheShell(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	mk := marker()
	// The background sleep keeps stdout open: it ends with the shell, so
	// the call returns before its yield (a wait for the grandchild would
	// answer "running" after it), and nothing of it is left.
	s := start(t, m, req("sleep "+mk+" & echo done", timeout(20*time.Second)))
	wantStatus(t, s, "exited")
	if s.Stdout.Text != "done\n" || s.ExitCode != 0 {
		t.Fatalf("%+v", s)
	}
	waitGone(t, mk, time.Second)
	// Late output of a grandchild within the drain is kept: it writes as
	// soon as the shell is gone (reaped), not after a time of its own,
	// which a loaded machine can stretch past the drain.
	s = start(t, m, req("(while kill -0 $$ 2>/dev/null; do :; done; echo late) & echo early"))
	if s.Stdout.Text != "early\nlate\n" {
		t.Fatalf("stdout %q", s.Stdout.Text)
	}
}

func TestKillSession(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	for _, c := range []struct {
		sig  syscall.Signal
		name string
		cmd  string
		want int
	}{
		{syscall.SIGTERM, "TERM", "echo up; sleep %[1]s & sleep %[1]s & wait", -15},
		{syscall.SIGINT, "INT", "echo up; sleep %[1]s", -2},
		{syscall.SIGKILL, "KILL", "echo up; sleep %[1]s & sleep %[1]s", -9},
		{syscall.SIGTERM, "TERM ignored", "trap '' TERM; echo up; sleep %[1]s", -9},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mk := marker()
			s := start(t, m, req(fmt.Sprintf(c.cmd, mk), yield(300*time.Millisecond)))
			wantStatus(t, s, "running")
			waitRunning(t, mk, 1)
			k, err := m.Kill(context.Background(), s.SessionID, c.sig, 5*time.Second, 65536)
			if err != nil {
				t.Fatal(err)
			}
			if k.Status != "terminated" || !k.Killed || !k.Ended || k.ExitCode != c.want {
				t.Fatalf("%+v", k)
			}
			waitGone(t, mk, 2*time.Second)
			_, err = m.Write(context.Background(), s.SessionID, "", 0, 65536)
			wantCode(t, err, "SESSION_NOT_FOUND")
			_, err = m.Kill(context.Background(), s.SessionID, c.sig, 0, 65536)
			wantCode(t, err, "SESSION_NOT_FOUND")
		})
	}
	t.Run("exited", func(t *testing.T) {
		t.Parallel()
		s := start(t, m, req("sleep 0.2; echo bye; exit 4", yield(0)))
		wantStatus(t, s, "running")
		waitEnded(t, m, s.SessionID)
		k, err := m.Kill(context.Background(), s.SessionID, syscall.SIGTERM, time.Second, 65536)
		if err != nil {
			t.Fatal(err)
		}
		if k.Status != "exited" || k.Killed || k.ExitCode != 4 || k.Stdout.Text != "bye\n" {
			t.Fatalf("%+v", k)
		}
	})
	t.Run("wait 0", func(t *testing.T) {
		t.Parallel()
		mk := marker()
		s := start(t, m, req("trap '' TERM; sleep "+mk, yield(100*time.Millisecond)))
		begin := time.Now()
		k, err := m.Kill(context.Background(), s.SessionID, syscall.SIGTERM, 0, 65536)
		// Without waiting for the escalation's grace second.
		if err != nil || !k.Killed || time.Since(begin) > testkit.Scale(killGrace) {
			t.Fatalf("%+v %v after %v (%s scales this)", k, err, time.Since(begin), testkit.SlowEnv)
		}
		waitGone(t, mk, 3*time.Second) // the escalation goes on
	})
}

func TestCancel(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	mk := marker()
	s := start(t, m, req("sleep "+mk+" & sleep "+mk, yield(100*time.Millisecond)))
	waitRunning(t, mk, 2)
	if !m.Cancel(context.Background(), s.SessionID) {
		t.Fatal("Cancel did not find the session")
	}
	waitGone(t, mk, 2*time.Second)
	if m.Cancel(context.Background(), s.SessionID) {
		t.Fatal("a cancelled session is still there")
	}
	_, err := m.Write(context.Background(), s.SessionID, "", 0, 65536)
	wantCode(t, err, "SESSION_NOT_FOUND")
}

func TestCloseEndsEveryGroup(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	mk := marker()
	start(t, m, req("sleep "+mk+" & sleep "+mk, yield(50*time.Millisecond)))
	start(t, m, req("trap '' TERM; sleep "+mk, yield(50*time.Millisecond), tty))
	waitRunning(t, mk, 3)
	begin := time.Now()
	m.Close()
	if d := time.Since(begin); d > testkit.Scale(5*time.Second) {
		t.Fatalf("Close took %v (%s scales this)", d, testkit.SlowEnv)
	}
	waitGone(t, mk, time.Second)
	_, err := m.Start(context.Background(), req("true", func(r *Request) { r.Dir = m.opts.Root }))
	wantCode(t, err, "INTERNAL_ERROR")
}

func TestTailTruncation(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	s := start(t, m, req("seq 1 5000", func(r *Request) { r.MaxOutputBytes = 20 }))
	if s.Stdout.Text != "4997\n4998\n4999\n5000\n" || !s.Stdout.Truncated || s.Stdout.TruncatedBy != "bytes" {
		t.Fatalf("%+v", s.Stdout)
	}
	if len(s.Warnings) == 0 || !strings.Contains(s.Warnings[0], "stdout truncated") {
		t.Fatalf("warnings %v", s.Warnings)
	}
	s = start(t, m, req("seq 1 5000 >&2"))
	lines := strings.Split(strings.TrimSuffix(s.Stderr.Text, "\n"), "\n")
	if len(lines) != MaxLines || lines[0] != "3001" || s.Stderr.TruncatedBy != "lines" || s.Stdout.Truncated {
		t.Fatalf("%d lines from %s, %+v", len(lines), lines[0], s.Stderr.TruncatedBy)
	}
}

func TestCutTail(t *testing.T) {
	for _, c := range []struct {
		in       string
		max      int
		want, by string
	}{
		{"a\nb\nc\n", 100, "a\nb\nc\n", ""},
		{"a\nb\nc\n", 4, "b\nc\n", "bytes"},
		{"a\nb\nc\n", 3, "c\n", "bytes"},
		{"a\nb\nc", 3, "b\nc", "bytes"},
		{"short\n" + strings.Repeat("x", 10) + "\n", 4, "xxxx", "bytes"}, // the last line alone is too long
		{"é€x", 4, "€x", "bytes"},                                        // never a split character
		{"€€", 4, "€", "bytes"},
		{"", 4, "", ""},
	} {
		out, by := cutTail([]byte(c.in), c.max, MaxLines)
		if string(out) != c.want || by != c.by {
			t.Errorf("cutTail(%q, %d) = %q, %q; want %q, %q", c.in, c.max, out, by, c.want, c.by)
		}
	}
	out, by := cutTail([]byte("1\n2\n3\n4\n"), 100, 2)
	if string(out) != "3\n4\n" || by != "lines" {
		t.Errorf("lines: %q %q", out, by)
	}
	out, _ = cutTail([]byte("1\n2\n3\n4"), 100, 2)
	if string(out) != "3\n4" {
		t.Errorf("lines without a final newline: %q", out)
	}
}

func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	s := start(t, m, req(`printf 'a\377b\n'`))
	if s.Stdout.Text != "a\uFFFDb\n" {
		t.Fatalf("%q", s.Stdout.Text)
	}
}

func TestRing(t *testing.T) {
	var r ring
	r.write([]byte("hello "))
	r.write([]byte("world"))
	if b, om := r.take(); string(b) != "hello world" || om != 0 || r.dropped() != 0 {
		t.Fatalf("%q %d", b, om)
	}
	big := make([]byte, RingSize/2+7)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	for range 5 {
		r.write(big)
	}
	total := int64(11 + 5*len(big))
	b, om := r.take()
	if len(b) != RingSize || om != total-11-RingSize || r.dropped() != total-RingSize {
		t.Fatalf("len %d omitted %d dropped %d", len(b), om, r.dropped())
	}
	want := strings.Repeat(string(big), 5)
	if string(b) != want[len(want)-RingSize:] {
		t.Fatal("the ring does not hold the last RingSize bytes")
	}
	r.write(make([]byte, 3*RingSize))
	if b, om := r.take(); len(b) != RingSize || om != 2*RingSize || r.unread() != 0 {
		t.Fatalf("len %d omitted %d", len(b), om)
	}
	// A character split across writes is read whole.
	var u ring
	u.write([]byte("x\xe2\x82"))
	if b, _ := u.take(); string(b) != "x" {
		t.Fatalf("%q", b)
	}
	u.write([]byte("\xac"))
	if b, _ := u.take(); string(b) != "€" {
		t.Fatalf("%q", b)
	}
}

// TestHugeOutputStaysBounded: a command printing hundreds of megabytes
// finishes, keeps at most the ring in memory and counts what it dropped.
func TestHugeOutputStaysBounded(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	const n = 256 << 20
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	s := start(t, m, req(fmt.Sprintf("yes abcdefghijklmnopqrstuvwxyz | head -c %d; echo tail >&2", n), yield(30*time.Second), timeout(60*time.Second)))
	wantStatus(t, s, "exited")
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if s.Stdout.Dropped != n-RingSize || s.Stdout.Omitted != n-RingSize || s.Stderr.Text != "tail\n" {
		t.Fatalf("dropped %d omitted %d", s.Stdout.Dropped, s.Stdout.Omitted)
	}
	if len(s.Stdout.Text) > 65536 || !s.Stdout.Truncated {
		t.Fatalf("%d bytes returned", len(s.Stdout.Text))
	}
	if grow := int64(after.HeapInuse) - int64(before.HeapInuse); grow > 64<<20 {
		t.Fatalf("heap grew by %d MiB", grow>>20)
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "dropped by the 1 MiB session buffer") }) {
		t.Fatalf("warnings %v", s.Warnings)
	}
}

func TestTTYRepl(t *testing.T) {
	t.Parallel()
	testkit.Runnable(t, "python3", "apt-get install -y python3", "-c", "pass")
	m := newManager(t, Options{})
	s := start(t, m, req("python3 -i -q", tty, yield(5*time.Second)))
	wantStatus(t, s, "running")
	if !strings.Contains(s.Stdout.Text, ">>>") {
		t.Fatalf("no prompt: %q", s.Stdout.Text)
	}
	id := s.SessionID
	out := exchange(t, m, id, "print(6*7)\n", "42")
	if strings.Contains(out, "print(6*7)") && !strings.Contains(out, ">>>") {
		t.Fatalf("echo: %q", out)
	}
	exchange(t, m, id, "import sys; sys.stdout.write('x' * 3 + '\\n')\n", "xxx")
	w, err := m.Write(context.Background(), id, "exit()\n", 5*time.Second, 65536)
	if err != nil {
		t.Fatal(err)
	}
	if w.Status == "running" {
		w, err = m.Write(context.Background(), id, "", 5*time.Second, 65536)
	}
	if err != nil || w.Status != "exited" || w.ExitCode != 0 {
		t.Fatalf("%+v %v", w, err)
	}
	_, err = m.Write(context.Background(), id, "1\n", 0, 65536)
	wantCode(t, err, "SESSION_CLOSED")
}

func TestTTYShell(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	s := start(t, m, req("sh", tty, yield(300*time.Millisecond)))
	wantStatus(t, s, "running")
	out := exchange(t, m, s.SessionID, "echo $((40+2)); test -t 0 && echo is-a-tty\n", "is-a-tty")
	if !strings.Contains(out, "42") || strings.Contains(out, "echo $((40+2))") {
		t.Fatalf("output %q (the terminal echoes?)", out)
	}
	k, err := m.Kill(context.Background(), s.SessionID, syscall.SIGKILL, time.Second, 65536)
	if err != nil || k.Status != "terminated" || k.ExitCode != -9 {
		t.Fatalf("%+v %v", k, err)
	}
}

// exchange writes to a session and reads until want shows up.
func exchange(t *testing.T, m *Manager, id, chars, want string) string {
	t.Helper()
	var out strings.Builder
	deadline := time.Now().Add(testkit.Scale(10 * time.Second))
	for time.Now().Before(deadline) {
		w, err := m.Write(context.Background(), id, chars, 2*time.Second, 65536)
		if err != nil {
			t.Fatal(err)
		}
		chars = ""
		out.WriteString(w.Stdout.Text)
		if strings.Contains(out.String(), want) {
			return out.String()
		}
	}
	t.Fatalf("no %q in %q", want, out.String())
	return ""
}

func TestTTYStartsOnFirstOutput(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	begin := time.Now()
	s := start(t, m, req("echo ready; sleep "+marker(), tty, yield(time.Hour)))
	wantStatus(t, s, "running")
	// On the first output, not at the hour's yield.
	if d := time.Since(begin); d > testkit.Scale(4*time.Second) || !strings.Contains(s.Stdout.Text, "ready") {
		t.Fatalf("%q after %v (%s scales this)", s.Stdout.Text, d, testkit.SlowEnv)
	}
	s = start(t, m, req("exit 7", tty))
	if s.Status != "exited" || s.ExitCode != 7 {
		t.Fatalf("%+v", s)
	}
}

func TestEnvironment(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	server := map[string]string{"PATH": os.Getenv("PATH"), "LANG": "C.UTF-8", "FOO_TOKEN": "t0ken", "AWS_SECRET_ACCESS_KEY": "abc",
		"SSH_AUTH_SOCK": "/tmp/agent", "USER": "me", "HOME": "/root"}
	m.getenv = func(k string) (string, bool) { v, ok := server[k]; return v, ok }
	s := start(t, m, req("env", func(r *Request) {
		r.Env = map[string]string{"MY_FLAG": "1", "API_KEY": "x", "LD_PRELOAD": "/x.so", "DYLD_INSERT_LIBRARIES": "y",
			"NOTE": "ghp_abcdefghijklmnopqrstuvwxyz0123", "LANG": "en_US.UTF-8"}
	}))
	env := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(s.Stdout.Text), "\n") {
		k, v, _ := strings.Cut(l, "=")
		env[k] = v
	}
	for k := range env {
		if _, tool := m.tools.Env[k]; !tool && !slices.Contains([]string{"PATH", "LANG", "HOME", "TMPDIR", "MY_FLAG", "PWD", "OLDPWD", "SHLVL", "_"}, k) {
			t.Errorf("unexpected variable %s=%s", k, env[k])
		}
	}
	if env["HOME"] != m.home || env["TMPDIR"] != m.tmp || env["MY_FLAG"] != "1" ||
		env["LANG"] != "en_US.UTF-8" || env["PATH"] != os.Getenv("PATH") {
		t.Fatalf("env %v", env)
	}
	if fi, err := os.Stat(env["TMPDIR"]); err != nil || !fi.IsDir() {
		t.Fatalf("TMPDIR: %v", err)
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool {
		return strings.Contains(w, "API_KEY") && strings.Contains(w, "NOTE") && !strings.Contains(w, "ghp_")
	}) {
		t.Fatalf("warnings %v", s.Warnings)
	}

	// Dangerous mode passes the caller's variables through (the
	// server's secrets still stay out).
	d := newManager(t, Options{Dangerous: true})
	d.getenv = m.getenv
	s = start(t, d, req("env", func(r *Request) { r.Env = map[string]string{"API_KEY": "x"} }))
	if !strings.Contains(s.Stdout.Text, "API_KEY=x\n") || strings.Contains(s.Stdout.Text, "t0ken") {
		t.Fatalf("%s", s.Stdout.Text)
	}
}

func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

func TestLandlock(t *testing.T) {
	t.Parallel()
	testkit.Runnable(t, "python3", "apt-get install -y python3", "-c", "pass")
	if landlockABI() < 1 {
		m := newManager(t, Options{})
		s := start(t, m, req("true"))
		if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "Landlock") }) {
			t.Fatalf("no Landlock warning: %v", s.Warnings)
		}
		testkit.Missing(t, "Landlock is not available on this kernel (Linux 5.13 or later with landlock among the LSMs it boots with)")
	}
	// Landlock holds alone (where the kernel refuses the box) and as the
	// box's second wall: a path the command can see but was not granted
	// stays unwritten.
	for _, noBox := range []bool{false, true} {
		t.Run(fmt.Sprintf("box=%v", !noBox), func(t *testing.T) {
			extra := t.TempDir()
			outside := filepath.Join(extra, "x-outside")
			m := newManager(t, Options{AllowRoots: []string{extra}})
			m.noBox = noBox
			s := start(t, m, req("touch "+outside+"; echo $?; touch inside && echo in; cat /etc/hostname; ls /home; mkdir -p $TMPDIR/d && echo tmp; python3 -c 'open(\""+outside+"\", \"w\")'"))
			if got := len(s.Warnings); (got != 0) != noBox {
				t.Fatalf("warnings %v", s.Warnings)
			}
			if _, err := os.Stat(outside); err == nil {
				t.Fatalf("the sandboxed command wrote %s", outside)
			}
			if !strings.HasPrefix(s.Stdout.Text, "1\nin\n") || !strings.Contains(s.Stdout.Text, "tmp\n") {
				t.Fatalf("stdout %q stderr %q", s.Stdout.Text, s.Stderr.Text)
			}
			if _, err := os.Stat(filepath.Join(m.opts.Root, "inside")); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"/etc/hostname", "/home", "Error"} {
				if !strings.Contains(s.Stderr.Text, want) {
					t.Errorf("stderr lacks %q: %s", want, s.Stderr.Text)
				}
			}
		})
	}
	// Extra allowed roots are readable.
	extra := t.TempDir()
	os.WriteFile(filepath.Join(extra, "f"), []byte("shared\n"), 0o644)
	a := newManager(t, Options{AllowRoots: []string{extra}})
	s := start(t, a, req("cat "+filepath.Join(extra, "f")+"; touch "+filepath.Join(extra, "g")))
	if s.Stdout.Text != "shared\n" || !strings.Contains(s.Stderr.Text, "cannot touch") {
		t.Fatalf("%+v", s)
	}
	if _, err := os.Stat(filepath.Join(extra, "g")); err == nil {
		t.Fatal("the command wrote into a read-only allowed root")
	}
}

func TestWithoutLandlockWarns(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(os.TempDir(), "x-outside-"+marker())
	t.Cleanup(func() { os.Remove(outside) })
	m := newManager(t, Options{})
	m.noLandlock = true
	s := start(t, m, req("touch "+outside+" && echo wrote"))
	if s.Status != "exited" || s.Stdout.Text != "wrote\n" {
		t.Fatalf("%+v", s)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "Landlock is unavailable") || !strings.Contains(s.Warnings[0], "external sandbox") {
		t.Fatalf("warnings %v", s.Warnings)
	}
	// The box still holds: what it wrote is in its own /tmp.
	if _, err := os.Stat(outside); err == nil {
		t.Fatalf("without Landlock the boxed command wrote %s on the host", outside)
	}
	// Without the box either, only the policy's checks are left.
	m.noBox = true
	s = start(t, m, req("touch "+outside+" && echo wrote"))
	if s.Stdout.Text != "wrote\n" || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "only the exec policy checks") {
		t.Fatalf("%+v", s)
	}
}

func TestSessionLimit(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{MaxSessions: 3})
	a := start(t, m, req("sleep 30", yield(0)))
	b := start(t, m, req("sleep 0.1", yield(0)))
	c := start(t, m, req("sleep 30", yield(0)))
	if w, err := m.Write(context.Background(), b.SessionID, "", 5*time.Second, 100); err != nil || w.Status != "exited" {
		t.Fatalf("%+v %v", w, err)
	}
	d := start(t, m, req("sleep 30", yield(0)))
	if got := sessionIDs(m); len(got) != 3 || slices.Contains(got, b.SessionID) {
		t.Fatalf("sessions %v; the exited one (%s) should have gone first", got, b.SessionID)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "exited session") {
		t.Fatalf("warnings %v", d.Warnings)
	}
	m.Write(context.Background(), c.SessionID, "", 0, 100) // a is now the longest idle
	e := start(t, m, req("sleep 30", yield(0)))
	if got := sessionIDs(m); len(got) != 3 || slices.Contains(got, a.SessionID) {
		t.Fatalf("sessions %v; the idle one (%s) should have gone", got, a.SessionID)
	}
	if !strings.Contains(e.Warnings[0], "idle running session") {
		t.Fatalf("warnings %v", e.Warnings)
	}
}

func TestEnvironFilter(t *testing.T) {
	get := func(k string) (string, bool) {
		v, ok := map[string]string{"PATH": "/bin", "LC_ALL": "C", "OPENAI_API_KEY": "sk-abc"}[k]
		return v, ok
	}
	env, warns := environ("/s/home", "/s/tmp", map[string]string{"PYENV_ROOT": "/h/.pyenv"},
		map[string]string{"A=B": "x", "K": "v\x00", "PYTHONPATH": "/x", "OK": "AKIAABCDEFGHIJKLMNOP"}, false, get)
	want := []string{"HOME=/s/home", "LC_ALL=C", "PATH=/bin", "PYENV_ROOT=/h/.pyenv", "TMPDIR=/s/tmp"}
	if !slices.Equal(env, want) || len(warns) != 3 {
		t.Fatalf("%v %v", env, warns)
	}
}

// The launcher drops start-up hooks and secret names again, whatever their
// case, even when the policy was not asked; dangerous mode passes them.
func TestEnvironDropsStartupKeys(t *testing.T) {
	get := func(k string) (string, bool) { v, ok := map[string]string{"PATH": "/bin"}[k]; return v, ok }
	caller := map[string]string{"GCONV_PATH": "/x", "git_ssh_command": "evil", "NODE_PATH": "/x", "JAVA_TOOL_OPTIONS": "-javaagent:x",
		"github_token": "t", "GIT_AUTHOR_NAME": "A"}
	env, _ := environ("/s/home", "/s/tmp", nil, caller, false, get)
	if want := []string{"GIT_AUTHOR_NAME=A", "HOME=/s/home", "PATH=/bin", "TMPDIR=/s/tmp"}; !slices.Equal(env, want) {
		t.Fatalf("env %v, want %v", env, want)
	}
	if env, _ := environ("/s/home", "/s/tmp", nil, caller, true, get); len(env) != len(caller)+3 {
		t.Fatalf("dangerous mode: %v", env)
	}
}
