package orchestrator

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/sandbox"
)

// Every agent runs in the sealed box, with the network (the endpoints
// that could run code need a token): its worktree and the repository's
// git directory (it commits) read and written, but for the git
// directory's hooks, configuration and info, which git would obey in the
// user's own checkout; the system, the toolchains on the server's PATH
// and the agent's own program (an npm package's whole prefix) read and
// executed. A COMMAND gets a private HOME and TMPDIR of the repository's
// own under the user's state directory. An agent CLI keeps the user's
// HOME, but in the box it is an empty scratch directory holding only the
// CLI's own configuration and login (agent.OwnPaths), so the CLI finds
// its settings and sessions while ~/.ssh, other projects and every other
// credential store are not there. The tracker's MCP server it is given
// gets the program and the checkout's .sudocode. Nothing else of the
// user's files and no host socket is in the box.

// agentBox is the box of a task's agent running inv for spec.
func (o *Orchestrator) agentBox(ctx context.Context, kind string, spec agent.RunSpec, inv agent.Invocation) (phaseBox, error) {
	dir := spec.Dir
	ri, err := o.wt.place(ctx)
	if err != nil {
		return phaseBox{}, err
	}
	tc := o.toolchains(dir, ri)
	userHome, _ := o.opts.Env.HomeDir()
	gitReadOnly, err := gitControlFiles(ri.commonDir)
	if err != nil {
		return phaseBox{}, err
	}
	b := phaseBox{env: tc.Env}
	b.policy = sandbox.Policy{
		Landlock:  true,
		Full:      []string{dir, ri.commonDir},
		ReadOnly:  append(append([]string(nil), sandbox.SystemReadFiles...), gitReadOnly...),
		ReadWrite: sandbox.SystemDevices,
		Network:   true,
	}
	b.policy.ReadExec = append(append([]string(nil), sandbox.SystemReadExec...), tc.LandlockPaths()...)
	if prog := programRoot(inv, dir, kind != agent.ToolCommand); prog != "" && sandbox.CheckAllowRoot(prog, userHome) == nil {
		b.policy.ReadExec = append(b.policy.ReadExec, prog)
	}
	for _, s := range spec.MCPServers {
		b.policy.ReadExec = append(b.policy.ReadExec, s.Command)
		if wd := s.Env["SUDOCODE_WORKING_DIR"]; wd != "" {
			b.policy.Full = append(b.policy.Full, filepath.Join(wd, ".sudocode"))
		}
	}
	if spec.ConfigDir != "" {
		b.policy.ReadOnly = append(b.policy.ReadOnly, spec.ConfigDir)
	}
	if kind == agent.ToolCommand {
		return b, o.privateHome(ri, &b)
	}
	env := envMap(inv.Env)
	home := env["HOME"]
	if !filepath.IsAbs(home) {
		return b, nil
	}
	dirs, files := agent.OwnPaths(kind, func(k string) string { return env[k] }, home)
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return phaseBox{}, fault.Wrap(fault.Unavailable, err, "cannot make the agent's configuration directory "+d)
		}
	}
	if kind == agent.ToolOpenCode && spec.ConfigDir != "" {
		if err := copyLogin(agent.OpenCodeLogin(o.opts.Env.Getenv, home), filepath.Join(agent.OpenCodeDataHome(spec.ConfigDir), "opencode", "auth.json")); err != nil {
			return phaseBox{}, fault.Wrap(fault.Unavailable, err, "cannot copy OpenCode's login into the task's data directory")
		}
	}
	// Codex confines the commands it runs with a bubblewrap sandbox of its
	// own: user namespaces and mounts, which the filter refuses and
	// Landlock forbids. The box is its wall; its sandbox then works inside.
	if kind == agent.ToolCodex {
		b.policy.UserNamespaces, b.policy.NoLandlock = true, true
	}
	// Gemini CLI reads the task's MCP servers from a system settings file,
	// which it skips unless root owns it and its directory.
	b.policy.RootInBox = kind == agent.ToolGemini
	b.policy.Scratch = []string{home}
	b.policy.Full = append(b.policy.Full, dirs...)
	b.policy.Seed = files
	return b, nil
}

// privateHome gives a COMMAND's box a HOME and TMPDIR of the repository's
// own, kept between tasks.
func (o *Orchestrator) privateHome(ri repoInfo, b *phaseBox) error {
	var err error
	if b.home, b.tmp, err = privateDirs(ri, "agent-commands", "COMMAND tasks", o.opts.Env); err != nil {
		return err
	}
	b.policy.Full = append(b.policy.Full, b.home, b.tmp)
	return nil
}

// gitControlFiles are the parts of a git directory that git obeys in
// every work tree (hooks, configuration, info/attributes): read-only in a
// box that may otherwise write the directory. The directories are made
// first, so a command cannot create them.
func gitControlFiles(common string) ([]string, error) {
	var out []string
	for _, d := range []string{"hooks", "info"} {
		p := filepath.Join(common, d)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, fault.Wrap(fault.Unavailable, err, "cannot prepare the repository's git directory for the box")
		}
		out = append(out, p)
	}
	return append(out, filepath.Join(common, "config")), nil
}

// programRoot is what to grant of the program inv runs, resolved on its
// PATH as exec would from dir: for an agent CLI (cli) inside an npm
// prefix (a node_modules tree, as the CLIs are installed), that whole
// prefix; else the file alone (a COMMAND's program in a project's
// node_modules does not open the project).
func programRoot(inv agent.Invocation, dir string, cli bool) string {
	if len(inv.Argv) == 0 {
		return ""
	}
	bin := inv.Argv[0]
	if !filepath.IsAbs(bin) && filepath.Base(bin) != bin {
		bin = filepath.Join(dir, bin)
	}
	p, err := agent.LookPath(bin, envMap(inv.Env)["PATH"])
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	parts := strings.Split(real, string(filepath.Separator))
	if i := slices.Index(parts, "node_modules"); cli && i > 1 {
		return strings.Join(parts[:i], string(filepath.Separator))
	}
	return real
}

// envMap is env by name (the last value of a name wins).
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// startAgent starts inv, the agent of spec, in its box.
func (o *Orchestrator) startAgent(ctx context.Context, spec agent.RunSpec, ad agent.Adapter, inv agent.Invocation) (*sandbox.Cmd, *os.File, *os.File, error) {
	b, err := o.agentBox(ctx, ad.Kind(), spec, inv)
	if err != nil {
		return nil, nil, nil, err
	}
	if b.home != "" {
		inv.Env = b.environ(inv.Env)
	} else {
		inv.Env = boxTemp(inv.Env)
	}
	return startIn(inv, spec.Dir, b.policy)
}

// boxTemp is env with the temporary directory the box's own /tmp, and no
// runtime directory (the host's /run is not in the box).
func boxTemp(env []string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "TMPDIR=") || strings.HasPrefix(kv, "XDG_RUNTIME_DIR=")
	})
	return append(out, "TMPDIR=/tmp")
}

// copyLogin copies a CLI's login file to dst (made private), when there
// is one; a missing one is no error (the CLI may take its key from the
// environment).
func copyLogin(src, dst string) error {
	b, err := os.ReadFile(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return writeFileAtomic(dst, b)
}

// writeFileAtomic writes b to path through a temporary file renamed over
// it, mode 0600.
func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".new"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
