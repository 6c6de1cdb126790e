package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// OnCI tells whether the CI environment variable is set to a true value
// (CI=true, CI=1, or any value that is not a boolean, as CI services set
// it). There, every prerequisite of the suite is installed by .ci/run.
func OnCI() bool {
	v, ok := os.LookupEnv("CI")
	if !ok || v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	return err != nil || b
}

// Missing stops tb for want of a prerequisite. Under CI it is a failure,
// since CI must never silently run less than the whole suite; elsewhere
// it is a skip. The message should say what to install.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if OnCI() {
		tb.Fatalf("%s (CI is set, so a missing prerequisite fails rather than skips; .ci/run installs it)", msg)
	}
	tb.Skip(msg)
}

// Command returns the path of the program name on PATH, or stops tb with
// Missing, naming how to install it (e.g. "apt-get install -y git").
func Command(tb testing.TB, name, install string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, "%s is not installed: %s", name, install)
	}
	return p
}

// Runnable is Command for a program the test runs: it also runs it with
// args (e.g. --version) and stops tb with Missing, naming the program and
// what it answered, when that fails. A program on PATH that does not run,
// such as a version manager's shim left by another user, is as missing
// as none.
func Runnable(tb testing.TB, name, install string, args ...string) string {
	tb.Helper()
	p := Command(tb, name, install)
	out, err := exec.CommandContext(Context(tb, time.Minute), p, args...).CombinedOutput()
	if err != nil {
		Missing(tb, "%s (%s) does not run: %s %s: %v: %s; install it: %s", name, p, name, strings.Join(args, " "), err, strings.TrimSpace(string(out)), install)
	}
	return p
}
