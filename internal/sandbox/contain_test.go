//go:build linux

package sandbox

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// running counts the processes whose command line holds arg.
func running(arg string) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), arg) {
			continue
		}
		if st, _ := stat(atoi(e.Name())); st != 'Z' && st != 'X' && st != 0 {
			n++
		}
	}
	return n
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}

func waitCount(t *testing.T, arg string, cond func(int) bool) {
	t.Helper()
	if !testkit.Eventually(5*time.Second, func() bool { return cond(running(arg)) }) {
		t.Fatalf("%d processes with %s", running(arg), arg)
	}
}

// escape runs a shell that leaves a setsid'd and a double-forked sleep
// behind and exits; both must end with it.
func escape(t *testing.T) {
	t.Helper()
	mk := fmt.Sprintf("302.%d", rand.IntN(1e9))
	c := exec.Command("/bin/sh", "-c", fmt.Sprintf("setsid sleep %[1]s & ( (sleep %[1]s &) & ) ; sleep 0.3; exit 3", mk))
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	sc := Command(c, Policy{})
	if err := sc.Start(); err != nil {
		t.Fatal(err)
	}
	waitCount(t, mk, func(n int) bool { return n >= 2 })
	sc.Wait()
	if code, sig := sc.ExitStatus(); code != 3 || sig != 0 {
		t.Fatalf("exit %d %v", code, sig)
	}
	waitCount(t, mk, func(n int) bool { return n == 0 })
	t.Logf("containment: %s", sc.Report().Containment)
}

func TestContainmentInANamespace(t *testing.T) { escape(t) }

// Where no PID namespace can be had, the supervisor kills what it
// inherited as a subreaper: the same escapes end with the command. The
// fallback is forced in a child process (the choice is per process).
func TestContainmentAsSubreaper(t *testing.T) {
	if os.Getenv("SANDBOX_TEST_SUBREAPER") == "1" {
		forceNone = true
		escape(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestContainmentAsSubreaper$", "-test.v")
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_SUBREAPER=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "containment: subreaper") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// A signal the server sends the group reaches the command, whose status
// is reported as its own.
func TestSignalStatus(t *testing.T) {
	c := exec.Command("/bin/sh", "-c", "echo up; exec sleep 30")
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, _ := c.StdoutPipe()
	sc := Command(c, Policy{})
	if err := sc.Start(); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 3)
	out.Read(b)
	syscall.Kill(-c.Process.Pid, syscall.SIGINT)
	sc.Wait()
	if code, sig := sc.ExitStatus(); sig != syscall.SIGINT {
		t.Fatalf("exit %d %v", code, sig)
	}
}
