package procs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sudocode/sudocode/internal/workspace"
)

// inherited are the only server variables a command sees
// (docs/coding-tools.md#child-environment).
var inherited = []string{"PATH", "LANG", "LC_ALL"}

// environ is a command's environment: PATH, LANG and LC_ALL from the
// server, HOME and TMPDIR the workspace's private ones, the variables
// the toolchains on PATH need to find themselves (PYENV_ROOT, …), then
// the caller's variables. Outside dangerous mode sensitive names, loader keys and
// secret-looking values are dropped again, whoever set them (the policy
// has refused such caller variables already: this is defence in depth).
// Names that cannot be passed (empty, with '=' or NUL) are dropped.
func environ(home, tmp string, tools map[string]string, caller map[string]string, dangerous bool, getenv func(string) (string, bool)) (env []string, warnings []string) {
	vars := map[string]string{}
	for _, k := range inherited {
		if v, ok := getenv(k); ok {
			vars[k] = v
		}
	}
	for k, v := range tools {
		vars[k] = v
	}
	vars["HOME"] = home
	vars["TMPDIR"] = tmp
	var dropped []string
	for k, v := range caller {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			warnings = append(warnings, fmt.Sprintf("environment variable %q was not passed: names must be non-empty without '=' or NUL, values without NUL", k))
			continue
		}
		vars[k] = v
	}
	for k, v := range vars {
		if !dangerous && workspace.SensitiveEnv(k, v) {
			delete(vars, k)
			dropped = append(dropped, k)
		}
	}
	if len(dropped) > 0 {
		slices.Sort(dropped)
		warnings = append(warnings, fmt.Sprintf("environment variables withheld from the command (sensitive or loader keys, or secret-looking values): %s", strings.Join(dropped, ", ")))
	}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env, warnings
}
