package orchestrator

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/sandbox"
)

// A COMMAND task runs any command as the agent, so it runs in the sealed
// box: its worktree and the repository's git directory (it may commit)
// read and written, but for the git directory's hooks, configuration and
// info, which git would obey in the user's own checkout; a private HOME and TMPDIR of the repository's own
// under the user's state directory; the system, the toolchains on the
// server's PATH and the command's own program read and executed; the
// network, as every agent has it (the endpoints that could run code need
// a token). Nothing else of the user's files: no ~/.ssh, no other
// project, no host socket. The agent CLIs need their own configuration
// and credentials and run contained but outside the box.

// commandBox is the box of a COMMAND task running inv in its worktree
// dir.
func (o *Orchestrator) commandBox(ctx context.Context, dir string, inv agent.Invocation) (phaseBox, error) {
	ri, err := o.wt.info(ctx)
	if err != nil {
		return phaseBox{}, err
	}
	st, err := stateHome()
	if err != nil {
		return phaseBox{}, err
	}
	base := filepath.Join(st, "sudocode", "agent-commands", repoKey(ri))
	b := phaseBox{home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp")}
	for _, d := range []string{b.home, b.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return phaseBox{}, fault.Wrap(fault.Unavailable, err, "cannot make the private home of COMMAND tasks")
		}
	}
	userHome, _ := os.UserHomeDir()
	tc := sandbox.ToolchainsOf(sandbox.Host{Path: os.Getenv("PATH"), Home: userHome,
		Workspaces: []string{dir, ri.commonDir}, Getenv: os.LookupEnv})
	b.env = tc.Env
	// The repository's git directory is written by commits, but what git
	// runs or obeys later in the user's own checkout stays read-only in
	// the box: its hooks, configuration and info/attributes (made first,
	// so a command cannot create them).
	var gitReadOnly []string
	for _, d := range []string{"hooks", "info"} {
		p := filepath.Join(ri.commonDir, d)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return phaseBox{}, fault.Wrap(fault.Unavailable, err, "cannot prepare the repository's git directory for the box")
		}
		gitReadOnly = append(gitReadOnly, p)
	}
	gitReadOnly = append(gitReadOnly, filepath.Join(ri.commonDir, "config"))
	b.policy = sandbox.Policy{
		Landlock:  true,
		Full:      []string{dir, ri.commonDir, b.home, b.tmp},
		ReadOnly:  append(append([]string(nil), sandbox.SystemReadFiles...), gitReadOnly...),
		ReadWrite: sandbox.SystemDevices,
		Network:   true,
	}
	b.policy.ReadExec = append(append([]string(nil), sandbox.SystemReadExec...), tc.LandlockPaths()...)
	if prog := commandProgram(inv, dir); prog != "" && sandbox.CheckAllowRoot(prog, userHome) == nil {
		b.policy.ReadExec = append(b.policy.ReadExec, prog)
	}
	return b, nil
}

// commandProgram is the program a COMMAND names, resolved as exec would
// from dir, when it is a file of its own outside the system: granted read
// and execute by itself, nothing beside it.
func commandProgram(inv agent.Invocation, dir string) string {
	if len(inv.Argv) == 0 {
		return ""
	}
	bin := inv.Argv[0]
	if !filepath.IsAbs(bin) && filepath.Base(bin) != bin {
		bin = filepath.Join(dir, bin)
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return ""
	}
	if p, err = filepath.Abs(p); err != nil {
		return ""
	}
	return p
}

// startAgent starts inv, a task's agent, in its worktree dir: a COMMAND
// in its box, an agent CLI contained.
func (o *Orchestrator) startAgent(ctx context.Context, dir string, ad agent.Adapter, inv agent.Invocation) (*sandbox.Cmd, *os.File, *os.File, error) {
	if ad.Kind() != agent.ToolCommand {
		return startProcess(inv, dir)
	}
	b, err := o.commandBox(ctx, dir, inv)
	if err != nil {
		return nil, nil, nil, err
	}
	inv.Env = b.environ(inv.Env)
	return startIn(inv, dir, b.policy)
}
