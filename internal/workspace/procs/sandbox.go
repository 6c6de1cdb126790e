package procs

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// The sandbox (§8.3) restricts a command between fork and exec, which Go
// cannot do in-process: the server re-executes its own binary in a hidden
// helper mode, marked by helperEnv, with the rules as argv[1] and the
// command after them. The helper sets no_new_privs, applies Landlock,
// reports on fd 3 (statusFD) and execs /bin/sh; fd 3 is close-on-exec,
// so the server reads the report up to EOF, which is the exec.

const (
	helperEnv   = "SUDOCODE_SANDBOX_EXEC"
	helperMagic = "1"
	statusFD    = 3
	shell       = "/bin/sh"
)

// helperConfig is what the helper restricts itself to.
type helperConfig struct {
	Workspace string   `json:"workspace"`             // every right
	ReadExec  []string `json:"read_exec"`             // read + execute (directories or files)
	ReadWrite []string `json:"read_write"`            // read + write files (devices)
	ReadOnly  []string `json:"read_only"`             // read
	Terminal  []string `json:"terminal,omitempty"`    // read + write + ioctl (the session's /dev/tty)
	Disable   bool     `json:"no_landlock,omitempty"` // behave as on a kernel without Landlock (tests)
}

// helperReport is the helper's first line on statusFD; a second one with
// ExecError means the exec failed.
type helperReport struct {
	Landlock  string `json:"landlock,omitempty"` // "enforced" or "unavailable"
	ABI       int    `json:"abi,omitempty"`
	Reason    string `json:"reason,omitempty"`
	ExecError string `json:"exec_error,omitempty"`
}

// System paths commands may read and execute (§8.3), and the devices
// they may read and write. Missing ones are skipped.
var (
	systemReadExec = []string{"/bin", "/lib", "/lib64", "/lib32", "/libx32", "/sbin", "/usr", "/etc/alternatives",
		"/etc/ca-certificates", "/etc/localtime", "/etc/pki", "/etc/ssl", "/etc/npmrc"}
	// Read-only system files ordinary tools fail without (beyond the
	// profile's list): git dies on an unreadable /etc/gitconfig, user
	// and group names need the passwd and group files, "localhost" and
	// port names resolve through hosts, resolv.conf and services. None
	// holds secrets.
	systemReadFiles = []string{"/etc/gitconfig", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/ld.so.cache",
		"/etc/hosts", "/etc/resolv.conf", "/etc/host.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols"}
	systemReadWrite = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"}
	systemReadOnly  = []string{"/proc/self", "/proc/thread-self", "/dev/fd"}
)

// sandboxConfig is the helper's configuration for a workspace, the
// extra allowed roots and a terminal session or not.
func sandboxConfig(root string, allowRoots []string, tty bool) helperConfig {
	c := helperConfig{Workspace: root, ReadWrite: systemReadWrite, ReadOnly: systemReadOnly}
	c.ReadExec = append(c.ReadExec, systemReadExec...)
	c.ReadExec = append(c.ReadExec, allowRoots...)
	c.ReadOnly = append(c.ReadOnly[:len(c.ReadOnly):len(c.ReadOnly)], systemReadFiles...)
	// TMPDIR is <root>/.tmp, inside the workspace: no rule of its own.
	if tty {
		c.Terminal = []string{"/dev/tty"}
	}
	return c
}

// landlockWarning is the warning of a command that ran without Landlock.
func landlockWarning(reason string) string {
	return fmt.Sprintf("Landlock sandbox unavailable (%s): only the exec policy checks applied to this command, "+
		"so it can read and write outside the workspace; run the server in an external sandbox "+
		"(a container or VM without secrets or network) for untrusted code", reason)
}

func init() { MaybeRunSandboxHelper() }

// MaybeRunSandboxHelper turns the process into the sandbox helper when
// the server launched it as one: it restricts itself and execs the
// command, never returning. Otherwise it returns at once. Binaries call
// it first thing in main; the package also runs it from init, so that
// any binary linking the package (test binaries included) can serve as
// its own helper.
func MaybeRunSandboxHelper() {
	if os.Getenv(helperEnv) == "" {
		return
	}
	if os.Getenv(helperEnv) != helperMagic || len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "sandbox helper: bad invocation")
		os.Exit(126)
	}
	var cfg helperConfig
	if err := json.Unmarshal([]byte(os.Args[1]), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox helper: bad configuration:", err)
		os.Exit(126)
	}
	status := os.NewFile(statusFD, "sandbox-status")
	report := func(r helperReport) {
		b, _ := json.Marshal(r)
		status.Write(append(b, '\n'))
	}
	report(restrictSelf(cfg))
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, helperEnv+"=") {
			env = append(env, kv)
		}
	}
	err := execve(os.Args[2], os.Args[2:], env)
	report(helperReport{ExecError: err.Error()})
	os.Exit(126)
}
