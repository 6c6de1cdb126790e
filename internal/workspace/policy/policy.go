// Package policy decides whether exec_command may run a command: the
// command policy of the coding tools (docs/coding-tools.md#command-policy),
// on commands parsed as a shell parses them (mvdan.cc/sh/v3).
//
// The policy is a tripwire in front of the sandbox, not a sandbox: it
// refuses the obvious ways out of the workspace and the operations that
// need explicit permission, judging each word on its literal text.
package policy

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/workspace"
)

// Permission names of the refusals.
const (
	PermPrivileged  = "privileged_executable"
	PermEscape      = "filesystem_escape"
	PermSensitive   = "sensitive_env"
	PermInline      = "inline_script"
	PermExpansion   = "shell_expansion"
	PermDestructive = "destructive_command"
	PermNetwork     = "network"
)

// Refusal is a policy hit: the permission the command needs, a message
// that says plainly what was denied and why, and details for the caller.
type Refusal struct {
	Permission string         // privileged_executable, filesystem_escape, sensitive_env, inline_script, shell_expansion, destructive_command or network
	Message    string         // e.g. "Network access is denied by default; explicit permission required."
	Details    map[string]any // permission, command, and path / env_keys / option as relevant
}

// Grantable reports whether a permission could ever unlock the refusal
// (workspace escapes and privileged executables never can).
func (r *Refusal) Grantable() bool {
	return r.Permission != PermEscape && r.Permission != PermPrivileged
}

// Mode is what the server allows beyond the defaults.
type Mode struct {
	Dangerous bool // --dangerously-skip-all-permissions: only steps 1 and 2
	// Network: the server lets commands use the network (--allow-network),
	// so step 7 does not refuse them; the kernel is told the same.
	Network bool
}

// CheckWith applies the policy's steps 1–7 in order to cmd, run in
// workdir (a workspace-relative directory, already validated as
// exec_command's workdir is), and returns the first hit, or nil when the
// command may run. Relative path arguments are resolved from workdir and
// must still stay inside the workspace root. In dangerous mode only
// steps 1 and 2 (privileged executables, workspace escapes) apply.
func CheckWith(root *workspace.Root, workdir, cmd string, env map[string]string, mode Mode) *Refusal {
	dangerous := mode.Dangerous
	c := &checker{root: root, workdir: cleanWorkdir(workdir), env: env, cmd: normalise(cmd)}
	a := &analysis{base: c.base()}
	a.script(cmd, 0)

	// 1. privileged (setuid/setgid) executables
	for _, cl := range a.calls {
		if exe, ok := c.privileged(cl.argv[0]); ok {
			return c.refuse(PermPrivileged, map[string]any{"path": exe},
				"Running the setuid/setgid executable %s (%s) is denied: privileged executables are never permitted.", cl.argv[0], exe)
		}
	}
	// 2. workspace escapes
	checked := map[string]bool{}
	for _, p := range a.paths {
		if checked[p] {
			continue
		}
		checked[p] = true
		if why := c.escape(p); why != "" {
			return c.refuse(PermEscape, map[string]any{"path": p},
				"Access to %s is denied: %s. Paths outside the workspace are never permitted.", quote(p), why)
		}
	}
	if dangerous {
		return nil
	}
	// 3. sensitive caller environment
	if keys := sensitiveKeys(env); len(keys) > 0 {
		return c.refuse(PermSensitive, map[string]any{"env_keys": keys},
			"Passing the environment variable(s) %s is denied by default: their names or values look like secrets or loader/startup injection; explicit permission required.", strings.Join(keys, ", "))
	}
	// 4. inline interpreter or shell code
	for _, cl := range a.calls {
		if cl.inline != "" {
			return c.refuse(PermInline, map[string]any{"option": cl.inline},
				"Running inline %s code (%s) is denied by default; explicit permission required. Write the code to a file in the workspace and run that instead.", cl.name, inlineForm(cl.inline))
		}
	}
	// 5. shell substitution/expansion
	if e := expansion(cmd); e != "" {
		return c.refuse(PermExpansion, nil,
			"Shell substitution/expansion (%s) is denied by default; explicit permission required.", e)
	}
	// 6. destructive commands
	for _, cl := range a.calls {
		if cl.destructive != "" {
			return c.refuse(PermDestructive, nil,
				"Destructive command (%s) is denied by default; explicit permission required.", cl.destructive)
		}
	}
	// 7. network access
	if !mode.Network && networkUse(cmd, a) {
		return c.refuse(PermNetwork, nil, "Network access is denied by default; explicit permission required.")
	}
	return nil
}

type checker struct {
	root    *workspace.Root
	workdir string // workspace-relative, "." for the root
	env     map[string]string
	cmd     string // normalised
	seen    map[string]string
}

func (c *checker) refuse(perm string, details map[string]any, format string, args ...any) *Refusal {
	d := map[string]any{"permission": perm, "command": c.cmd}
	for k, v := range details {
		d[k] = v
	}
	return &Refusal{Permission: perm, Message: fmt.Sprintf(format, args...), Details: d}
}

func cleanWorkdir(w string) string {
	w = path.Clean("/" + strings.ReplaceAll(w, `\`, "/"))
	if w == "/" {
		return "."
	}
	return w[1:]
}

// normalise is the command as shown in details: trimmed, whitespace
// runs collapsed, capped.
func normalise(cmd string) string {
	s := strings.Join(strings.Fields(cmd), " ")
	if len(s) > maxCmdShown {
		cut := maxCmdShown
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func quote(s string) string {
	if strings.ContainsAny(s, " \t\n\"'") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

func inlineForm(o string) string {
	switch o {
	case "<<":
		return "script fed by a heredoc"
	case "<<<":
		return "script fed by a here-string"
	case "|":
		return "script piped into it"
	case "-":
		return "script read from standard input via -"
	}
	return o
}

// privileged resolves a command word as the shell would (through PATH,
// the caller's PATH if it sets one) and reports a setuid/setgid file.
func (c *checker) privileged(word string) (string, bool) {
	if word == "" {
		return "", false
	}
	if c.seen == nil {
		c.seen = map[string]string{}
	}
	if exe, ok := c.seen[word]; ok {
		return exe, exe != ""
	}
	exe := c.lookPath(word)
	if exe != "" {
		if fi, err := os.Stat(exe); err != nil || fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) == 0 {
			exe = ""
		}
	}
	c.seen[word] = exe
	return exe, exe != ""
}

func (c *checker) base() string {
	if c.root == nil {
		return ""
	}
	return filepath.Join(c.root.Path, filepath.FromSlash(c.workdir))
}

func (c *checker) lookPath(word string) string {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(c.base(), p)
	}
	executable := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
	}
	if strings.Contains(word, "/") {
		if p := abs(word); executable(p) {
			return p
		}
		return ""
	}
	pathVar, ok := c.env["PATH"]
	if !ok {
		pathVar = os.Getenv("PATH")
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" {
			dir = "."
		}
		if p := abs(filepath.Join(dir, word)); executable(p) {
			return p
		}
	}
	return ""
}

var (
	urlLike     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`) })
	drivePrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z]:(/|$)`) })
	// devices are the special files a command may name: the standard
	// streams and the data devices the sandbox (docs/sandbox.md) opens anyway.
	devices = set("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/zero", "/dev/random", "/dev/urandom")
)

// escape reports why a path candidate leaves the workspace, or "".
func (c *checker) escape(p string) string {
	if p == "" || p == "-" || p == "--" || urlLike().MatchString(p) || devices[p] {
		return ""
	}
	s := strings.ReplaceAll(p, `\`, "/")
	switch {
	case strings.HasPrefix(s, "/"):
		return "absolute paths are outside the workspace"
	case strings.HasPrefix(s, "~"):
		return "home directory references are outside the workspace"
	case drivePrefix().MatchString(s):
		return "drive paths are outside the workspace"
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == ".." {
			return "'..' segments leave the workspace"
		}
		if dotGlob(seg) {
			return "the pattern " + seg + " can match '..'"
		}
	}
	if c.root == nil {
		return ""
	}
	if c.outside(s) {
		return "it resolves (through a symlink) outside the workspace"
	}
	if strings.ContainsAny(s, "*?[") && globSegments(s) <= maxGlobMeta {
		rel := path.Clean(s)
		matches, _ := fs.Glob(os.DirFS(c.base()), rel)
		for i, m := range matches {
			if i >= maxGlobMatch {
				break
			}
			if c.outside(m) {
				return "the pattern matches " + m + ", which resolves outside the workspace"
			}
		}
	}
	return ""
}

// outside resolves a relative path (symlinks followed; the nearest
// existing ancestor for a new path) and reports whether it leaves the
// root.
func (c *checker) outside(rel string) bool {
	full := path.Join(c.workdir, rel)
	if full == "." {
		return false
	}
	_, err := c.root.WriteTarget(full)
	switch workspace.CodeOf(err) {
	case workspace.CodePathOutsideWorkspace, workspace.CodeSymlinkEscape, workspace.CodeAbsolutePathDenied:
		return true
	}
	return false
}

// dotGlob reports a glob segment that a shell may expand to "..", such
// as .* or .?.
func dotGlob(seg string) bool {
	if !strings.ContainsAny(seg, "*?[") || !(strings.HasPrefix(seg, ".") || strings.HasPrefix(seg, "[")) {
		return false
	}
	ok, err := path.Match(seg, "..")
	return ok && err == nil
}

func globSegments(s string) int {
	n := 0
	for _, seg := range strings.Split(s, "/") {
		if strings.ContainsAny(seg, "*?[") {
			n++
		}
	}
	return n
}

// expansion reports the first substitution/expansion in cmd: a backtick,
// $( or ${, even inside quotes (plain $VAR is fine).
func expansion(cmd string) string {
	for i := 0; i < len(cmd); i++ {
		switch {
		case cmd[i] == '`':
			return "`…`"
		case cmd[i] == '$' && i+1 < len(cmd) && cmd[i+1] == '(':
			return "$(…)"
		case cmd[i] == '$' && i+1 < len(cmd) && cmd[i+1] == '{':
			return "${…}"
		}
	}
	return ""
}

var (
	// netMention: URLs, client programs as whole words, networking APIs.
	netMention = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)https?://` +
			`|(?:^|[^a-z0-9_.-])(?:curl|wget|nc|ncat|netcat|socat|ssh|scp|sftp|ftp|telnet)(?:$|[^a-z0-9_.-])` +
			`|(?:^|[^a-z0-9_])(?:urllib\.request|urllib3|requests\.|http\.client|httpconnection|httpsconnection|socket\.|aiohttp|httpx)`)
	})
	// textOnly commands only print or search text: a network mention in
	// their arguments is literal text.
	textOnly = set("echo", "printf", "grep", "egrep", "fgrep", "rg", "cat", "head", "tail", "wc")
)

// networkUse reports step 7: a network client or git network subcommand
// among the calls, or a network mention in the text, unless every
// command word of the line only prints or searches text.
func networkUse(cmd string, a *analysis) bool {
	literal := true
	for _, cl := range a.calls {
		if cl.network != "" {
			return true
		}
		if !cl.wrapper && !textOnly[cl.name] {
			literal = false
		}
	}
	if literal {
		return false
	}
	re := netMention()
	return re.MatchString(cmd) || re.MatchString(a.text.String())
}
