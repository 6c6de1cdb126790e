package procs

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Commands get a private home and temp directory outside the workspace
// (docs/coding-tools.md#child-environment): nothing a tool caches or configures
// there lands in the user's repository, and keeping them between runs keeps
// build caches warm. One pair per workspace, under the user's state directory.

// StateDir is where a workspace's private home/ and tmp/ live:
// $XDG_STATE_HOME/sudocode/coding/<hash of the workspace path>, with the
// platform's state directory when XDG_STATE_HOME is unset.
func StateDir(root string, getenv func(string) (string, bool)) string {
	base, ok := getenv("XDG_STATE_HOME")
	if !ok || !filepath.IsAbs(base) {
		home, _ := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		switch {
		case runtime.GOOS == "darwin" && home != "":
			base = filepath.Join(home, "Library", "Application Support")
		case home != "":
			base = filepath.Join(home, ".local", "state")
		default:
			base = filepath.Join(os.TempDir(), "sudocode-state-"+uidString())
		}
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(base, "sudocode", "coding", hex.EncodeToString(sum[:8]))
}

func uidString() string {
	return strings.TrimPrefix(filepath.Base(os.Getenv("USER")), ".")
}

// privateDirs creates (if missing) the home and temp directories under
// state and gives git the user's identity there; it returns their paths.
func privateDirs(state string, ident gitIdentity) (home, tmp string, err error) {
	home, tmp = filepath.Join(state, "home"), filepath.Join(state, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", "", err
		}
	}
	writeGitConfig(filepath.Join(home, ".gitconfig"), ident)
	return home, tmp, nil
}

// gitIdentity is the user's name and email for commits.
type gitIdentity struct{ Name, Email string }

// writeGitConfig writes the identity as the private home's git
// configuration, and nothing else of the user's; a file that already
// says the same is left alone, so a command's own additions stay until
// the identity changes.
func writeGitConfig(path string, id gitIdentity) {
	var b strings.Builder
	if id.Name != "" || id.Email != "" {
		b.WriteString("[user]\n")
		if id.Name != "" {
			b.WriteString("\tname = " + quoteGitValue(id.Name) + "\n")
		}
		if id.Email != "" {
			b.WriteString("\temail = " + quoteGitValue(id.Email) + "\n")
		}
	}
	want := b.String()
	if old, err := os.ReadFile(path); err == nil && strings.HasPrefix(string(old), want) {
		return
	}
	tmp := path + ".new"
	if os.WriteFile(tmp, []byte(want), 0o600) == nil {
		os.Rename(tmp, path)
	}
}

// quoteGitValue quotes a value for a git config file: in double quotes,
// with backslash and quote escaped and line breaks dropped.
func quoteGitValue(v string) string {
	v = strings.NewReplacer("\\", "\\\\", "\"", "\\\"", "\n", " ", "\r", " ").Replace(v)
	return "\"" + v + "\""
}
