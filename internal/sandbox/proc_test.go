package sandbox

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// A command sees its own processes in /proc: in the helper's PID
// namespace the numbers it gets ($$, getpid) are the namespace's, and a
// /proc of the outer namespace would show other processes under them.
// Programs that read /proc/<pid> (Codex's bubblewrap sandbox among them:
// it hung forever) need the namespace's own /proc.
func TestCommandSeesItsOwnProc(t *testing.T) {
	c := exec.Command("/bin/sh", "-c", `cat /proc/$$/comm; readlink /proc/self`)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	sc := Command(c, Policy{})
	if err := sc.Start(); err != nil {
		t.Fatal(err)
	}
	sc.Wait()
	lines := strings.Fields(out.String())
	if code, _ := sc.ExitStatus(); code != 0 || len(lines) != 2 || lines[0] != "sh" {
		t.Fatalf("containment %s: /proc/$$/comm and /proc/self: %q (exit %d), want sh and the reader's pid", sc.Report().Containment, out.String(), code)
	}
	t.Logf("containment %s: /proc/self is %s", sc.Report().Containment, lines[1])
}
