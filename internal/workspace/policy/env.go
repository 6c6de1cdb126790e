package policy

import (
	"sort"
	"strings"

	"github.com/sudocode/sudocode/internal/workspace"
)

// loaderKeys are the loader/startup injection variables of the profile
// (§5.5), plus LD_AUDIT (another ld.so hook) and bash's exported
// functions (BASH_FUNC_name%%, handled as a prefix below), which inject
// code the same way.
var loaderKeys = map[string]bool{
	"LD_PRELOAD":      true,
	"LD_LIBRARY_PATH": true,
	"LD_AUDIT":        true,
	"BASH_ENV":        true,
	"ENV":             true,
	"PYTHONPATH":      true,
	"PYTHONSTARTUP":   true,
	"RUBYLIB":         true,
	"RUBYOPT":         true,
	"PERL5OPT":        true,
	"NODE_OPTIONS":    true,
}

// LoaderKey reports whether an environment variable name is a
// loader/startup injection key (LD_PRELOAD, LD_LIBRARY_PATH, DYLD_*,
// BASH_ENV, ENV, PYTHONPATH, PYTHONSTARTUP, RUBYLIB, RUBYOPT, PERL5OPT,
// NODE_OPTIONS, and LD_AUDIT and BASH_FUNC_*). Names are compared
// case-insensitively.
func LoaderKey(name string) bool {
	u := strings.ToUpper(name)
	return loaderKeys[u] || strings.HasPrefix(u, "DYLD_") || strings.HasPrefix(u, "BASH_FUNC_")
}

// SensitiveEnv reports whether a caller environment variable must not
// reach a child outside dangerous mode (§5.5): a name that looks
// sensitive, a loader/startup key, or a value that looks like a secret.
func SensitiveEnv(name, value string) bool {
	return workspace.SensitiveKey(name) || LoaderKey(name) || workspace.SecretValue(value)
}

// sensitiveKeys lists the offending keys of env, sorted.
func sensitiveKeys(env map[string]string) []string {
	var keys []string
	for k, v := range env {
		if SensitiveEnv(k, v) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
