package testkit

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// SlowEnv names the one knob for every deadline a test sets: a factor
// (default 1) that multiplies them all. A machine that is slow or busy
// sets it, e.g. SUDOCODE_TEST_SLOW=4; no test asserts how fast anything
// ran, so the knob never changes what passes, only how long a test waits
// before it gives up.
const SlowEnv = "SUDOCODE_TEST_SLOW"

var slowFactor = sync.OnceValues(func() (float64, error) { return parseSlow(os.Getenv(SlowEnv)) })

// parseSlow reads the knob's value: empty is 1; anything else must be a
// number of at least 1.
func parseSlow(v string) (float64, error) {
	if v == "" {
		return 1, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 1 {
		return 1, fmt.Errorf("%s=%q: want a factor of at least 1 (e.g. %s=4), or unset for 1", SlowEnv, v, SlowEnv)
	}
	return f, nil
}

// Slow is the factor of SUDOCODE_TEST_SLOW. A value that is not a number
// of at least 1 panics, saying what to set, rather than run the suite
// with deadlines nobody asked for.
func Slow() float64 {
	f, err := slowFactor()
	if err != nil {
		panic(err)
	}
	return f
}

// Scale is d times the knob's factor: the deadline a test sets for d.
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Slow())
}

// Context is a context that ends Scale(d) from now, and ends with tb.
func Context(tb testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), Scale(d))
	tb.Cleanup(cancel)
	return ctx
}
