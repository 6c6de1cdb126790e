package testkit

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestParseSlow(t *testing.T) {
	for v, want := range map[string]float64{"": 1, "1": 1, "4": 4, "2.5": 2.5} {
		if got, err := parseSlow(v); err != nil || got != want {
			t.Errorf("%s=%q: %v %v, want %v", SlowEnv, v, got, err, want)
		}
	}
	for _, v := range []string{"0", "0.5", "-2", "fast", "4x"} {
		if _, err := parseSlow(v); err == nil || !strings.Contains(err.Error(), SlowEnv+"=4") {
			t.Errorf("%s=%q: %v, want an error saying what to set", SlowEnv, v, err)
		}
	}
}

// A wait that runs out fails its test saying what it waited for, how
// long, and which knob gives it longer; the knob scales the deadline.
// The waiting runs in a child test process, whose failure is the point.
func TestWaitForSaysWhatItWaitedFor(t *testing.T) {
	if os.Getenv("TESTKIT_WAIT_CHILD") != "" {
		WaitFor(t, 20*time.Millisecond, "the moon to turn blue", func() bool { return false })
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWaitForSaysWhatItWaitedFor$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TESTKIT_WAIT_CHILD=1", SlowEnv+"=3")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a wait for a condition that never holds passed:\n%s", out)
	}
	for _, want := range []string{"waited 60ms for the moon to turn blue", SlowEnv + "=4"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the failure does not say %q:\n%s", want, out)
		}
	}
}

// Receive returns what comes on the channel, and returns when it is
// closed.
func TestReceive(t *testing.T) {
	ch := make(chan string, 1)
	go func() { ch <- "ready" }()
	if got := Receive(t, time.Minute, "ready", ch); got != "ready" {
		t.Fatalf("Receive = %q", got)
	}
	done := make(chan struct{})
	go close(done)
	Receive(t, time.Minute, "done", done)
}
