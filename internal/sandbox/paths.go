package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// System paths a sandboxed command may read and execute, the few system files
// it may read, and the devices it may read and write (docs/sandbox.md). Missing
// ones are skipped.
var (
	SystemReadExec = []string{"/bin", "/lib", "/lib64", "/lib32", "/libx32", "/sbin", "/usr", "/opt",
		"/etc/alternatives", "/etc/ca-certificates", "/etc/localtime", "/etc/pki", "/etc/ssl", "/etc/npmrc"}
	// Read-only system files ordinary tools fail without: git dies on an
	// unreadable /etc/gitconfig, user and group names need the passwd
	// and group files, "localhost" and port names resolve through hosts,
	// resolv.conf and services. None holds secrets.
	SystemReadFiles = []string{"/etc/gitconfig", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/ld.so.cache",
		"/etc/hosts", "/etc/resolv.conf", "/etc/host.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols",
		"/proc/self", "/proc/thread-self", "/dev/fd"}
	SystemDevices = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"}
)

// credentialStores are the places under a home directory that hold
// credentials: never readable in the sandbox, whatever PATH or an allowed
// root says.
var credentialStores = []string{
	".ssh", ".aws", ".gnupg", ".config/gh", ".config/gcloud", ".azure", ".netrc", ".git-credentials",
	".docker", ".kube", ".local/share/keyrings", ".password-store", ".pki", ".vault-token", ".npmrc",
	".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".config/hub", ".config/op", ".terraform.d",
	".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware", ".config/microsoft-edge",
	".thunderbird", ".claude", ".claude.json", ".codex", ".gemini", ".config/opencode", ".local/share/opencode",
	"Library/Keychains", "Library/Application Support/Google/Chrome", "Library/Application Support/Firefox",
	// sudocode's own state: the server's token, other workspaces' private
	// homes and other tasks' worktrees.
	".local/state/sudocode",
}

// hostStores are places outside any home that no toolchain grant may
// reach: the Nix daemon's socket (store writes as the daemon's user).
var hostStores = []string{"/nix/var/nix/daemon-socket"}

// CredentialStores are the credential stores under home, absolute.
func CredentialStores(home string) []string {
	out := make([]string, len(credentialStores))
	for i, c := range credentialStores {
		out[i] = filepath.Join(home, c)
	}
	return out
}

// exposes returns the credential store under home that granting dir
// would make readable ("" when none): dir is a store, inside one, or
// holds one that exists.
func exposes(dir, home string) string {
	if home == "" || home == "/" {
		return ""
	}
	for _, c := range CredentialStores(home) {
		if within(dir, c) {
			return c
		}
		if within(c, dir) {
			if _, err := os.Lstat(c); err == nil {
				return c
			}
		}
	}
	return ""
}

// CheckAllowRoot refuses an extra root (CODING_TOOLS_MCP_EXEC_ALLOW_ROOTS)
// that would expose a credential store of home.
func CheckAllowRoot(dir, home string) error {
	if c := exposes(dir, home); c != "" {
		return fmt.Errorf("exec allow-root %s would expose the credential store %s to commands: name a directory that does not contain it", dir, c)
	}
	return nil
}

// within reports whether p is dir or below it (both clean and absolute).
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// canonical is p absolute, clean and with symlinks resolved; "" when it
// does not exist.
func canonical(p string) string {
	if p == "" {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	c, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return ""
	}
	return c
}
