package orchestrator

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
)

// EnvWorktrees names the variable that sets the worktree root (the
// --worktrees flag wins over it, and it over the project's agent.json).
const EnvWorktrees = "SUDOCODE_WORKTREES"

// stateHome is $XDG_STATE_HOME, or ~/.local/state as the XDG spec says.
func stateHome() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fault.Wrap(fault.Unavailable, err, "cannot place task worktrees: no home directory").
			WithHint("set XDG_STATE_HOME or " + EnvWorktrees + ", or pass --worktrees DIR")
	}
	return filepath.Join(home, ".local", "state"), nil
}

// repoKey names a repository's directory under a worktree root:
// <name>-<short hash of its path>, so that two checkouts named alike do
// not share one, and one root can serve many repositories.
func repoKey(ri repoInfo) string {
	main := ri.commonDir
	if filepath.Base(main) == ".git" {
		main = filepath.Dir(main)
	}
	sum := sha256.Sum256([]byte(main))
	name := strings.TrimSuffix(filepath.Base(main), ".git")
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = "repo"
	}
	return name + "-" + hex.EncodeToString(sum[:4])
}

// worktreeDir decides where the worktrees of the repository in ri go:
// under root (the server's --worktrees or SUDOCODE_WORKTREES), else the
// project's agent.json "worktrees" (relative to the checkout), else
// $XDG_STATE_HOME/sudocode/worktrees; always in a directory of the
// repository's own (see repoKey) that lies outside its work tree and its
// git directory: agents refuse to write below .git, and a worktree inside
// the checkout would show in the user's git status.
func worktreeDir(ri repoInfo, root string, s Settings) (string, error) {
	from := "--worktrees / " + EnvWorktrees
	if root == "" && s.Worktrees != "" {
		root, from = s.Worktrees, settingsFile+` "worktrees"`
		if !filepath.IsAbs(root) {
			root = filepath.Join(ri.top, root)
		}
	}
	if root == "" {
		st, err := stateHome()
		if err != nil {
			return "", err
		}
		root, from = filepath.Join(st, "sudocode", "worktrees"), "XDG_STATE_HOME"
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return "", fault.Wrap(fault.Invalid, err, "invalid worktree directory")
	}
	dir := filepath.Join(root, repoKey(ri))
	for _, inside := range []string{ri.top, ri.commonDir} {
		if within(resolved(dir), resolved(inside)) {
			return "", fault.New(fault.Invalid, "task worktrees would go to %s, inside %s (set by %s)", dir, inside, from).
				WithHint("choose a directory outside the repository: agents refuse to write below .git, and worktrees in the checkout show in git status")
		}
	}
	return dir, nil
}

// resolved is p with the symlinks of its longest existing prefix resolved
// (p itself may not exist yet).
func resolved(p string) string {
	rest := ""
	for cur := filepath.Clean(p); ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return filepath.Clean(p)
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
