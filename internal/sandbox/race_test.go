//go:build linux

package sandbox

import (
	"bytes"
	"os/exec"
	"testing"
)

// Under the race detector the helper, this test binary again, is told not
// to sleep a second at exit (GORACE atexit_sleep_ms, 1000 by default):
// every sandboxed git call and command of a -race test run paid it. The
// command sees the helper's environment, so it can tell.
func TestHelperSkipsTheRaceExitSleep(t *testing.T) {
	c := exec.Command("/bin/sh", "-c", `printf %s "$GORACE"`)
	c.Env = []string{"PATH=/usr/bin:/bin"}
	var out bytes.Buffer
	c.Stdout = &out
	sc := Command(c, Policy{})
	if err := sc.Start(); err != nil {
		t.Fatal(err)
	}
	if err := sc.Wait(); err != nil {
		t.Fatal(err)
	}
	want := ""
	if underRace {
		want = "atexit_sleep_ms=0"
	}
	if got := out.String(); got != want {
		t.Fatalf("the command saw GORACE=%q, want %q", got, want)
	}
}
