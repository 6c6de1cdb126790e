// Package policy decides whether exec_command may run a command: the
// coding-tools profile's safety policy (§8), on commands parsed as a shell
// parses them.
package policy

import "github.com/sudocode/sudocode/internal/workspace"

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
	return r.Permission != "filesystem_escape" && r.Permission != "privileged_executable"
}

// Check applies the policy's steps 1–7 in order and returns the first hit,
// or nil when the command may run. In dangerous mode only steps 1 and 2
// (privileged executables, workspace escapes) apply.
// Stub: replaced by the real policy.
func Check(root *workspace.Root, cmd string, env map[string]string, dangerous bool) *Refusal {
	return nil
}
