package gitx

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/sandbox"
)

// unsandboxed are the subcommands that run without the sandbox: they read
// refs, objects and configuration, or write objects, configuration or a
// worktree's own HEAD (all found through the pinned GIT_DIR and
// GIT_COMMON_DIR), and never a work tree file or the index, so no
// filter, fsmonitor or diff driver can come into play, and hooks are
// off. Everything else runs sandboxed, update-ref included: git's ref
// store finds the shared refs through the git directory's commondir
// file, whatever GIT_COMMON_DIR says (see Repo.unchanged).
var unsandboxed = map[string]bool{
	"rev-parse": true, "check-ref-format": true, "show-ref": true, "symbolic-ref": true,
	"rev-list": true, "commit-tree": true, "config": true, "version": true,
}

// worktreeBookkeeping are the worktree subcommands that read and prune
// the registrations in the common directory and touch no work tree: they
// run unsandboxed, since inside the box the other worktrees (outside the
// granted places) would look gone, and prune would drop them.
var worktreeBookkeeping = map[string]bool{"list": true, "prune": true}

// sandboxed reports whether git runs args under the sandbox.
func sandboxed(args []string) bool {
	if len(args) > 1 && args[0] == "worktree" && worktreeBookkeeping[args[1]] {
		return false
	}
	return len(args) > 0 && !unsandboxed[args[0]]
}

// policy is what a sandboxed git may touch: write the repository (its
// work tree, and its git and common directories where they lie outside
// it, as pinned) and the caller's extra directories; read and execute
// the system and the toolchains on PATH; read the system files and the
// user's own git configuration; no network. A program the repository
// names (a filter picked by .git/info/attributes) gets the same, and
// nothing more. A git directory inside the work tree is granted with it,
// never by its own path: the sandbox opens the paths it grants, and a
// command could by then have made that path a link to another
// repository. A server running as root runs git as root of the box's own
// user namespace (which owns no other namespace): git then sees the
// files owned by root, as the index recorded them outside the box; as
// the box's ordinary user it would find every file's owner changed and
// hash every tracked file again on each read of the work tree.
func policy(r *Repo, bin string, writable []string) sandbox.Policy {
	home, _ := os.UserHomeDir()
	p := sandbox.Policy{
		Landlock:  true,
		Full:      slices.Concat([]string{r.Top}, r.outside(), writable),
		ReadWrite: sandbox.SystemDevices,
		RootInBox: os.Geteuid() == 0,
		Finish:    FinishAfterServer,
	}
	p.ReadExec = append(p.ReadExec, sandbox.SystemReadExec...)
	p.ReadExec = append(p.ReadExec, toolchainPaths(os.Getenv("PATH"), home, p.Full)...)
	p.ReadExec = append(p.ReadExec, bin)
	p.ReadOnly = append(p.ReadOnly, sandbox.SystemReadFiles...)
	p.ReadOnly = append(p.ReadOnly, globalConfigFiles(home)...)
	p.ReadOnly = append(p.ReadOnly, userConfigFiles(home)...)
	return p
}

// FinishAfterServer is how long a git running when the server dies may
// go on to end by itself (sandbox.Policy.Finish): a merge into the
// user's checkout, killed half-way, left the repository's HEAD.lock and
// the merged files in the work tree, and every later merge refused
// them. Every git gets it, reads too: they end soon by themselves, and
// writing and reading git then share their warm box.
const FinishAfterServer = time.Minute

// toolchains memoizes the toolchain grant by PATH, home and the places
// the call writes: every sandboxed git call needs it, and making it reads
// the toolchains' directories. As for exec_command's commands, a
// toolchain installed while the server runs is granted after a restart.
var toolchains struct {
	sync.Mutex
	grants map[string][]string
}

// toolchainPaths are the paths granted read and execute for the
// toolchains on pathEnv, none inside or holding a writable place.
func toolchainPaths(pathEnv, home string, writable []string) []string {
	key := strings.Join(append([]string{pathEnv, home}, writable...), "\x00")
	toolchains.Lock()
	defer toolchains.Unlock()
	if g, ok := toolchains.grants[key]; ok {
		return g
	}
	if toolchains.grants == nil || len(toolchains.grants) >= 64 {
		toolchains.grants = map[string][]string{}
	}
	g := sandbox.ToolchainsOf(sandbox.Host{Path: pathEnv, Home: home, Workspaces: writable, Getenv: os.LookupEnv}).LandlockPaths()
	toolchains.grants[key] = g
	return g
}

// globalConfigFiles are the user's own git configuration files (and the
// global excludes file beside them).
func globalConfigFiles(home string) []string {
	var out []string
	if home != "" {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		out = append(out, filepath.Join(x, "git"))
	} else if home != "" {
		out = append(out, filepath.Join(home, ".config", "git"))
	}
	return out
}

// indexDirs is the directory of a GIT_INDEX_FILE the caller names: git
// writes that index (and its lock beside it).
func indexDirs(env []string) []string {
	for _, kv := range env {
		if f, ok := strings.CutPrefix(kv, "GIT_INDEX_FILE="); ok && filepath.IsAbs(f) {
			return []string{filepath.Dir(f)}
		}
	}
	return nil
}
