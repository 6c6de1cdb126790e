package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/sandbox"
	"github.com/sudocode/sudocode/internal/userenv"
)

// A repository's commands (setup, merge.check, cleanup) run, once trusted,
// in the sandbox: the directory they run in (the task's worktree, or the
// check's) is their whole workspace, read and written; they get a private
// HOME and TMPDIR of the repository's own under the user's state
// directory (kept between runs, so the caches a setup fills serve the
// next task and the check); the repository's git directory read-only
// (git log and status work, commits and hooks do not); the system and the
// toolchains on the server's PATH read and execute; nothing else of the
// user's files, their ~/.ssh, other projects and host sockets included.
// Network: setup and merge.check get it (dependency installs, a build
// that fetches modules), cleanup does not.

// phaseBox is how one phase's command is confined.
type phaseBox struct {
	policy    sandbox.Policy
	home, tmp string
	env       map[string]string // the toolchains' variables under the private HOME
}

// phaseBoxFor builds the box of a phase that runs in dir.
func (o *Orchestrator) phaseBoxFor(ctx context.Context, phase, dir string) (phaseBox, error) {
	ri, err := o.wt.place(ctx)
	if err != nil {
		return phaseBox{}, err
	}
	var b phaseBox
	if b.home, b.tmp, err = privateDirs(ri, "repo-commands", "the repository's commands", o.opts.Env); err != nil {
		return phaseBox{}, err
	}
	tc := o.toolchains(dir, ri)
	b.env = tc.Env
	b.policy = sandbox.Policy{
		Landlock:  true,
		Full:      []string{dir, b.home, b.tmp},
		ReadOnly:  append(append([]string(nil), sandbox.SystemReadFiles...), ri.commonDir),
		ReadWrite: sandbox.SystemDevices,
		Network:   phase == PhaseSetup || phase == PhaseCheck,
	}
	b.policy.ReadExec = append(append([]string(nil), sandbox.SystemReadExec...), tc.LandlockPaths()...)
	return b, nil
}

// toolchains are the user's toolchains (sandbox.ToolchainsOf) as a box
// working in dir, a worktree of the repository of ri, grants them: found
// on the PATH and under the home of the user the tasks run for.
func (o *Orchestrator) toolchains(dir string, ri repoInfo) sandbox.Toolchains {
	home, _ := o.opts.Env.HomeDir()
	return sandbox.ToolchainsOf(sandbox.Host{Path: o.opts.Env.Getenv("PATH"), Home: home,
		Workspaces: []string{dir, ri.commonDir}, Getenv: o.opts.Env.LookupEnv})
}

// privateDirs makes (if missing) and returns the private home and temp
// directory that the commands of kind (for the message: whose) get in
// the repository of ri, kept between runs under the user's state
// directory (env's).
func privateDirs(ri repoInfo, kind, whose string, env userenv.Env) (home, tmp string, err error) {
	st, err := stateHome(env)
	if err != nil {
		return "", "", err
	}
	base := filepath.Join(st, "sudocode", kind, repoKey(ri))
	home, tmp = filepath.Join(base, "home"), filepath.Join(base, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", "", fault.Wrap(fault.Unavailable, err, "cannot make the private home of "+whose)
		}
	}
	return home, tmp, nil
}

// environ is env with HOME and TMPDIR the box's, the toolchains'
// variables set, and the XDG directories (the user's own) left out.
func (b phaseBox) environ(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "TMPDIR" || strings.HasPrefix(k, "XDG_") {
			continue
		}
		if _, set := b.env[k]; set {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "HOME="+b.home, "TMPDIR="+b.tmp)
	for k, v := range b.env {
		out = append(out, k+"="+v)
	}
	return out
}
