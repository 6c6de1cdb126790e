package testkit

import (
	"testing"
	"time"
)

// pollEvery is how often Eventually checks its condition: often enough
// that a test waits no longer than it must, rarely enough to cost nothing.
const pollEvery = 10 * time.Millisecond

// Eventually waits until cond holds and reports whether it did within
// Scale(d). It is for state the test cannot be told about (another
// process, the kernel's process table, a file another program writes);
// where the code under test offers a channel or a callback, wait on that
// instead.
func Eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(Scale(d))
	for !cond() {
		if time.Now().After(deadline) {
			return cond()
		}
		time.Sleep(pollEvery)
	}
	return true
}

// WaitFor is Eventually that fails tb, saying what it waited for, when
// cond does not hold within Scale(d).
func WaitFor(tb testing.TB, d time.Duration, what string, cond func() bool) {
	tb.Helper()
	if !Eventually(d, cond) {
		tb.Fatalf("waited %v for %s (%s)", Scale(d), what, slowHint())
	}
}

// Receive waits at most Scale(d) for a value on ch, or for ch to be
// closed (then it returns the zero value), failing tb, saying what it
// waited for, when neither comes.
func Receive[T any](tb testing.TB, d time.Duration, what string, ch <-chan T) T {
	tb.Helper()
	timer := time.NewTimer(Scale(d))
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		tb.Fatalf("waited %v for %s (%s)", Scale(d), what, slowHint())
	}
	var zero T
	return zero
}

// slowHint tells a test that gave up how to give it longer.
func slowHint() string {
	return "on a slow or busy machine, set " + SlowEnv + " to a factor, e.g. " + SlowEnv + "=4"
}
