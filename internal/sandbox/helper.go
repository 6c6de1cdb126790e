package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// The helper's protocol: the server runs its own binary with helperEnv
// set to supervisorMagic, the helper's configuration as argv[1] and the
// command's argv after it. The supervisor writes JSON lines on statusFD:
// its Report, then either {"started":true} or {"exec_error":…}, and, when
// the command has ended, {"exit":{…}}. lifelineFD is the read end of a
// pipe whose write end only the server holds: end of file there means the
// server is gone.
//
// A command under Landlock is started through a second stage: the
// supervisor runs the binary again with restrictMagic, and that process
// restricts itself, reports on its own statusFD (a pipe to the
// supervisor, closed on exec) and execs the command. The command so keeps
// the pid its rules were made by (/proc/self and /dev/fd are its own),
// and the supervisor stays outside the sandbox's domain, out of reach of
// the command's signals.

const (
	helperEnv       = "SUDOCODE_SANDBOX_EXEC"
	supervisorMagic = "2"
	restrictMagic   = "3"
	probeMagic      = "probe"     // start and exit 0 if a helper can start this way
	probeBoxMagic   = "probe-box" // start and exit 0 if a box can be built this way
	statusFD        = 3
	lifelineFD      = 4
)

// helperConfig is argv[1].
type helperConfig struct {
	Policy Policy     `json:"policy"`
	Path   string     `json:"path"`          // the command's executable; argv follows
	Box    *boxConfig `json:"box,omitempty"` // nil: no box (not asked for, or unavailable)
	// Warm makes the supervisor's second stage a zygote that runs the
	// server's commands one after another (warm.go); only with a box.
	Warm bool `json:"warm,omitempty"`
}

// statusLine is one line on statusFD.
type statusLine struct {
	Report    *Report     `json:"report,omitempty"`
	Started   bool        `json:"started,omitempty"`
	ExecError string      `json:"exec_error,omitempty"`
	Exit      *exitStatus `json:"exit,omitempty"`
}

// exitStatus is how the command ended: its exit code, or the signal
// that killed it.
type exitStatus struct {
	Code   int `json:"code"`
	Signal int `json:"signal,omitempty"`
}

func init() { MaybeRunHelper() }

// MaybeRunHelper turns the process into the sandbox helper when the
// server started it as one, never returning then; otherwise it returns at
// once. Binaries call it first thing in main; the package's init runs it
// too, so that any binary linking the package (test binaries included)
// can serve as its own helper.
func MaybeRunHelper() {
	v := os.Getenv(helperEnv)
	if v == "" {
		return
	}
	if v == probeMagic {
		os.Exit(probe())
	}
	if v == probeBoxMagic {
		os.Exit(probeBox())
	}
	if (v != supervisorMagic && v != restrictMagic) || len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "sandbox helper: bad invocation")
		os.Exit(126)
	}
	var cfg helperConfig
	if err := json.Unmarshal([]byte(os.Args[1]), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox helper: bad configuration:", err)
		os.Exit(126)
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, helperEnv+"=") && !slices.Contains(raceEnv, kv) {
			env = append(env, kv)
		}
	}
	if v == restrictMagic && cfg.Warm {
		os.Exit(serveWarm(cfg))
	}
	if v == restrictMagic {
		os.Exit(restrictAndExec(cfg, os.Args[2:], env))
	}
	os.Exit(supervise(cfg, os.Args[2:], env))
}
