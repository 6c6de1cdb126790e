package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// System paths a sandboxed command may read and execute, the few system
// files it may read, and the devices it may read and write (coding-tools
// profile §8.3). Missing ones are skipped.
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
}

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

// toolHomes are the variables a toolchain under the home needs to find
// itself once HOME is the command's private one, by the home directory
// that holds the toolchain, and the extra directories it reads.
var toolHomes = map[string]struct {
	env   string
	extra []string
}{
	".pyenv":  {env: "PYENV_ROOT"},
	".nvm":    {env: "NVM_DIR"},
	".volta":  {env: "VOLTA_HOME"},
	".asdf":   {env: "ASDF_DATA_DIR"},
	".bun":    {env: "BUN_INSTALL"},
	".rustup": {env: "RUSTUP_HOME"},
	// rustup's proxies in ~/.cargo/bin run the toolchains in ~/.rustup.
	".cargo": {extra: []string{".rustup"}},
}

// Toolchains is what the sandbox grants a server's PATH.
type Toolchains struct {
	ReadExec []string          // directories to read and execute
	Env      map[string]string // variables the toolchains need (PYENV_ROOT, RUSTUP_HOME, …)
}

// ToolchainsOf grants every directory on pathEnv, and for one under home
// the tool root it belongs to (the top-level directory under home that
// holds it: ~/.pyenv for ~/.pyenv/shims), each followed through
// symlinks. A root that would expose a credential store falls back to
// the PATH directory itself, and a directory that is or holds a store is
// left out.
func ToolchainsOf(pathEnv, home string) Toolchains {
	t := Toolchains{Env: map[string]string{}}
	home = canonical(home)
	add := func(d string) {
		if d == "" || exposes(d, home) != "" || slices.Contains(t.ReadExec, d) {
			return
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return
		}
		t.ReadExec = append(t.ReadExec, d)
	}
	for _, entry := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(entry) {
			continue // "." or "": the workspace is granted anyway
		}
		for _, d := range []string{filepath.Clean(entry), canonical(entry)} {
			if d == "" {
				continue
			}
			top := toolRoot(d, home)
			if top == "" {
				add(d)
				continue
			}
			if exposes(top, home) != "" {
				add(d)
			} else {
				add(top)
			}
			name := filepath.Base(top)
			if th, ok := toolHomes[name]; ok {
				if th.env != "" && slices.Contains(t.ReadExec, top) {
					t.Env[th.env] = top
				}
				for _, x := range th.extra {
					xd := filepath.Join(home, x)
					add(xd)
					if xth, ok := toolHomes[x]; ok && xth.env != "" && slices.Contains(t.ReadExec, xd) {
						t.Env[xth.env] = xd
					}
				}
			}
		}
	}
	return t
}

// toolRoot is the top-level directory under home holding d, "" when d is
// not below home (or is home itself, which is never granted whole).
func toolRoot(d, home string) string {
	if home == "" || home == "/" || !within(d, home) || d == home {
		return ""
	}
	rel, err := filepath.Rel(home, d)
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(rel, string(filepath.Separator))
	return filepath.Join(home, first)
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
