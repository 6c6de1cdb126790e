//go:build linux

package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// warmPolicy grants ws and the system, as exec_command's policy does.
func warmPolicy(ws string) Policy {
	return Policy{Landlock: true, Full: []string{ws}, ReadExec: SystemReadExec, ReadOnly: SystemReadFiles, ReadWrite: SystemDevices}
}

// warmCmd is script under /bin/sh through w, in a session of its own,
// writing to files (as exec_command's pipes are).
func warmCmd(t *testing.T, w *Warm, p Policy, dir, script string) (*Cmd, *os.File) {
	t.Helper()
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	c := exec.Command("/bin/sh", "-c", script)
	c.Dir = dir
	c.Env = []string{"PATH=/usr/bin:/bin", "MARK=warm"}
	c.Stdout, c.Stderr = wr, wr
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	sc := Command(c, p)
	sc.Warm = w
	err = sc.Start()
	wr.Close()
	if err != nil {
		t.Fatalf("start %q: %v", script, err)
	}
	if sc.Report().Box != "sealed" {
		testkit.Missing(t, "the sealed box: %s", sc.Report().BoxReason)
	}
	return sc, r
}

// warmRun runs script to its end and returns its output and exit.
func warmRun(t *testing.T, w *Warm, p Policy, dir, script string) (string, error) {
	t.Helper()
	sc, r := warmCmd(t, w, p, dir, script)
	var out bytes.Buffer
	out.ReadFrom(r)
	return out.String(), sc.Wait()
}

// Commands through a warm box run in the box, with their own directory,
// environment and exit status, and one after another they reuse it: the
// same PID namespace, built once.
func TestWarmBoxRunsCommandsInOneBox(t *testing.T) {
	ws := canonDir(t)
	os.WriteFile(filepath.Join(ws, "f"), []byte("in the workspace"), 0o600)
	secret := filepath.Join(canonDir(t), "id_rsa")
	os.WriteFile(secret, []byte("KEY"), 0o600)
	w := NewWarm()
	defer w.Close()
	p := warmPolicy(ws)
	script := `cat f; echo " $MARK $(readlink /proc/self/ns/pid)"; cat ` + secret + ` 2>/dev/null; exit 3`
	first, err := warmRun(t, w, p, ws, script)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 {
		t.Fatalf("exit: %v, output %q", err, first)
	}
	if !strings.HasPrefix(first, "in the workspace warm pid:[") || strings.Contains(first, "KEY") {
		t.Fatalf("output %q", first)
	}
	second, _ := warmRun(t, w, p, ws, script)
	if second != first {
		t.Fatalf("the second command ran elsewhere: %q, then %q", first, second)
	}
	if host, _ := os.Readlink("/proc/self/ns/pid"); strings.Contains(first, host) {
		t.Fatalf("the command ran in the server's PID namespace %s", host)
	}
}

// What a command leaves running, detached in a session of its own, is
// ended before the command counts as ended.
func TestWarmBoxEndsWhatACommandLeft(t *testing.T) {
	ws := canonDir(t)
	w := NewWarm()
	defer w.Close()
	mark := fmt.Sprintf("1000.%d", os.Getpid())
	out, err := warmRun(t, w, warmPolicy(ws), ws, `setsid sh -c 'sleep `+mark+` & sleep `+mark+`' >/dev/null 2>&1 < /dev/null & echo started`)
	if err != nil || out != "started\n" {
		t.Fatalf("%v %q", err, out)
	}
	if pids := processesWith(mark); len(pids) > 0 {
		t.Fatalf("left running after the command ended: %v", pids)
	}
}

// processesWith lists the host's processes whose command line holds s.
func processesWith(s string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); bytes.Contains(b, []byte(s)) && !zombie(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// The command's pid is its host pid and leads its process group: the
// group's signals reach it, and it ends as they say.
func TestWarmBoxCommandTakesGroupSignals(t *testing.T) {
	ws := canonDir(t)
	w := NewWarm()
	defer w.Close()
	sc, _ := warmCmd(t, w, warmPolicy(ws), ws, `exec sleep 1000`)
	pid := sc.Pid()
	testkit.WaitFor(t, 10*time.Second, "the command's pid to run sleep", func() bool {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		return string(cmdline) == "sleep\x001000\x00"
	})
	if err := syscall.Kill(-pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var ee *ExitError
	if err := sc.Wait(); !errors.As(err, &ee) || ee.Signal != syscall.SIGTERM {
		t.Fatalf("wait: %v", err)
	}
	if code, sig := sc.ExitStatus(); code != -1 || sig != syscall.SIGTERM {
		t.Fatalf("exit status %d %v", code, sig)
	}
}

// Commands that run at the same time get boxes of their own.
func TestWarmBoxIsNotShared(t *testing.T) {
	ws := canonDir(t)
	w := NewWarm()
	defer w.Close()
	p := warmPolicy(ws)
	busy, r := warmCmd(t, w, p, ws, `readlink /proc/self/ns/pid; exec sleep 1000`)
	ns := make([]byte, 64)
	n, _ := r.Read(ns)
	other, err := warmRun(t, w, p, ws, `readlink /proc/self/ns/pid`)
	if err != nil || other == "" || other == string(ns[:n]) {
		t.Fatalf("a second command joined a busy box: %v %q %q", err, ns[:n], other)
	}
	syscall.Kill(-busy.Pid(), syscall.SIGKILL)
	busy.Wait()
}

// A command that stops or kills the zygote above it ends its own box:
// the server sees it killed, and the next command gets a new box.
func TestWarmBoxZygoteStoppedEndsTheBox(t *testing.T) {
	ws := canonDir(t)
	w := NewWarm()
	defer w.Close()
	p := warmPolicy(ws)
	for _, sig := range []string{"STOP", "KILL"} {
		t.Run(sig, func(t *testing.T) {
			// It acts once Start has returned (the box said it started).
			gate := filepath.Join(ws, "go-"+sig)
			sc, r := warmCmd(t, w, p, ws, fmt.Sprintf(`while [ ! -e %s ]; do sleep 0.01; done; kill -%s $PPID; sleep 1000`, gate, sig))
			os.WriteFile(gate, nil, 0o600)
			done := make(chan error, 1)
			go func() { done <- sc.Wait() }()
			err := testkit.Receive(t, 20*time.Second, "the command's end with its box", done)
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Signal != syscall.SIGKILL {
				t.Fatalf("wait: %v", err)
			}
			r.Close()
			if out, err := warmRun(t, w, p, ws, `echo again`); err != nil || out != "again\n" {
				t.Fatalf("the next command: %v %q", err, out)
			}
		})
	}
}

// A program that cannot start is the caller's error, and the box stays.
func TestWarmBoxExecError(t *testing.T) {
	ws := canonDir(t)
	w := NewWarm()
	defer w.Close()
	c := exec.Command(filepath.Join(ws, "missing"))
	c.Dir = ws
	sc := Command(c, warmPolicy(ws))
	sc.Warm = w
	if err := sc.Start(); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("start: %v", err)
	}
	if out, err := warmRun(t, w, warmPolicy(ws), ws, `echo fine`); err != nil || out != "fine\n" {
		t.Fatalf("%v %q", err, out)
	}
}

// A workspace removed and made again is the new directory for the next
// command, not the old one the kept box bound.
func TestWarmBoxFollowsAWorkspaceMadeAgain(t *testing.T) {
	ws := canonDir(t)
	w := NewWarm()
	defer w.Close()
	p := warmPolicy(ws)
	os.WriteFile(filepath.Join(ws, "which"), []byte("old"), 0o600)
	if out, err := warmRun(t, w, p, ws, `cat which`); err != nil || out != "old" {
		t.Fatalf("%v %q", err, out)
	}
	os.RemoveAll(ws)
	os.Mkdir(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "which"), []byte("new"), 0o600)
	if out, err := warmRun(t, w, p, ws, `cat which`); err != nil || out != "new" {
		t.Fatalf("the command saw the old workspace: %v %q", err, out)
	}
}

// A working directory the box does not hold is named as such, not as a
// missing program.
func TestWarmBoxNamesAMissingDirectory(t *testing.T) {
	ws := canonDir(t)
	w := NewWarm()
	defer w.Close()
	c := exec.Command("/bin/sh", "-c", "true")
	c.Dir = filepath.Join(ws, "gone")
	sc := Command(c, warmPolicy(ws))
	sc.Warm = w
	if err := sc.Start(); err == nil || !strings.Contains(err.Error(), "the working directory "+c.Dir+" is not in the box") {
		t.Fatalf("start: %v", err)
	}
}

// A link on the way to a granted path turned elsewhere (a toolchain's
// version switched) is followed by the next command, not the kept box's.
func TestWarmBoxFollowsALinkTurnedElsewhere(t *testing.T) {
	ws, base := canonDir(t), canonDir(t)
	for _, v := range []string{"v1", "v2"} {
		os.MkdirAll(filepath.Join(base, v), 0o755)
		os.WriteFile(filepath.Join(base, v, "version"), []byte(v), 0o644)
	}
	current := filepath.Join(base, "current")
	os.Symlink("v1", current)
	w := NewWarm()
	defer w.Close()
	p := warmPolicy(ws)
	p.ReadExec = append([]string{current}, p.ReadExec...)
	if out, err := warmRun(t, w, p, ws, "cat "+current+"/version"); err != nil || out != "v1" {
		t.Fatalf("%v %q", err, out)
	}
	os.Remove(current)
	os.Symlink("v2", current)
	if out, err := warmRun(t, w, p, ws, "cat "+current+"/version"); err != nil || out != "v2" {
		t.Fatalf("the command saw the link's old target: %v %q", err, out)
	}
}

// A command whose policy's box Prepare is still building waits for that
// box instead of building a second one beside it: on two cores, two
// boxes built at once each take twice as long.
func TestWarmBoxBeingPreparedIsAwaited(t *testing.T) {
	ws := canonDir(t)
	w := NewWarm()
	defer w.Close()
	p := warmPolicy(ws)
	key, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	done, ok := w.startBuilding(string(key)) // a Prepare under way
	if !ok {
		t.Fatal("nothing is being built, yet startBuilding refused")
	}
	waiting := make(chan struct{})
	defer func(prev func(string)) { awaiting = prev }(awaiting)
	awaiting = func(k string) {
		if k == string(key) {
			close(waiting)
		}
	}
	out := make(chan string, 1)
	go func() {
		got, _ := warmRun(t, w, p, ws, `echo ran`)
		out <- got
	}()
	testkit.Receive(t, 10*time.Second, "the command to wait for the box being built", waiting)
	box, _ := newBox(p)
	if box == nil {
		testkit.Missing(t, "the sealed box")
	}
	b, err := w.spawn(string(key), helperConfig{Policy: p, Box: box, Warm: true})
	if err != nil {
		t.Fatal(err)
	}
	w.put(b)
	done()
	if got := testkit.Receive(t, 20*time.Second, "the command's output", out); got != "ran\n" {
		t.Fatalf("output %q", got)
	}
	if w.Built() != 1 || w.Reused() != 1 {
		t.Fatalf("built %d boxes, reused %d; want the one being prepared, reused by the command", w.Built(), w.Reused())
	}
}
