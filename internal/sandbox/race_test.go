//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Under the race detector the helper, this test binary again, is told not
// to sleep a second at exit (GORACE atexit_sleep_ms, 1000 by default):
// every sandboxed git call and command of a -race test run paid it. The
// command's environment stays its own.
func TestHelperSkipsTheRaceExitSleep(t *testing.T) {
	c := exec.Command("/bin/sh", "-c", `printf %s "$GORACE"; cat >/dev/null`)
	c.Env = []string{"PATH=/usr/bin:/bin"}
	var out bytes.Buffer
	c.Stdout = &out
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	sc := Command(c, Policy{})
	if err := sc.Start(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(sc.Process.Pid) + "/environ")
	stdin.Close()
	if werr := sc.Wait(); werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if told := slices.Contains(strings.Split(string(b), "\x00"), "GORACE=atexit_sleep_ms=0"); told != underRace {
		t.Errorf("the helper told to skip the race detector's exit sleep: %v, want %v", told, underRace)
	}
	if out.Len() != 0 {
		t.Errorf("the command saw GORACE=%q, want none", out.String())
	}
}
