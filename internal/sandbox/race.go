//go:build race

package sandbox

// raceEnv is added to a helper's environment in binaries built with the
// race detector (tests run with -race): a race-enabled process sleeps a
// second at exit unless told not to, and each sandboxed command starts
// one such helper.
var raceEnv = []string{"GORACE=atexit_sleep_ms=0"}
