package orchestrator

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/userenv"
)

// EnvWorktrees names the variable that sets the worktree root (the
// --worktrees flag wins over it, and it over the project's agent.json).
const EnvWorktrees = "SUDOCODE_WORKTREES"

// stateHome is env's $XDG_STATE_HOME, or ~/.local/state as the XDG spec
// says.
func stateHome(env userenv.Env) (string, error) {
	st, err := env.StateDir()
	if err != nil {
		return "", fault.Wrap(fault.Unavailable, err, "cannot place task worktrees: no home directory").
			WithHint("set XDG_STATE_HOME or " + EnvWorktrees + ", or pass --worktrees DIR")
	}
	return st, nil
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
// under root (the server's --worktrees or SUDOCODE_WORKTREES: the user's
// own choice), else the project's agent.json "worktrees", else
// $XDG_STATE_HOME/sudocode/worktrees (in env); always in a directory of the
// repository's own (see repoKey) that lies outside its work tree and its
// git directory: agents refuse to write below .git, and a worktree inside
// the checkout would show in the user's git status. The agent.json is
// repository content, so its place must be in the user's state directory
// (absolute, or relative to the checkout): anywhere else a pull could
// have agents write where it likes.
func worktreeDir(ri repoInfo, root string, s Settings, env userenv.Env) (string, error) {
	from := "--worktrees / " + EnvWorktrees
	if root == "" && s.Worktrees != "" {
		dir, err := repositoryWorktrees(ri, s.Worktrees, env)
		if err != nil {
			return "", err
		}
		root, from = dir, settingsFile+` "worktrees"`
	}
	if root == "" {
		st, err := stateHome(env)
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

// repositoryWorktrees checks the agent.json's "worktrees" setting: a
// directory below the user's state directory, and not the part of it
// where sudocode keeps its own records (trusted files, the commands'
// private homes).
func repositoryWorktrees(ri repoInfo, setting string, env userenv.Env) (string, error) {
	dir := setting
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(ri.top, dir)
	}
	st, err := stateHome(env)
	if err != nil {
		return "", err
	}
	refuse := func(why string) error {
		return fault.New(fault.Invalid, "%s \"worktrees\" is %s, %s", settingsFile, setting, why).
			WithHint("a repository may only place task worktrees in your state directory " + st + ": remove the setting, " +
				"or choose the place yourself with --worktrees DIR or " + EnvWorktrees)
	}
	d, base := resolved(dir), resolved(st)
	if d == base || !within(d, base) {
		return "", refuse("outside your state directory " + st)
	}
	for _, own := range []string{"trust", "repo-commands", "coding"} {
		if within(d, resolved(filepath.Join(st, "sudocode", own))) {
			return "", refuse("inside sudocode's own records in your state directory")
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
