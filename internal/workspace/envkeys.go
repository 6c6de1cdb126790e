package workspace

import (
	"strings"

	"github.com/sudocode/sudocode/internal/secret"
)

// startupKeys are environment variables that make a program load code, or run
// another program, when it starts or when it reaches for a helper: the
// profile's loader/startup keys (docs/coding-tools.md#child-environment),
// glibc's list of variables it strips for setuid programs, the interpreters'
// and runtimes' module paths and option hooks, the shells' start-up hooks, and
// the programs git and other tools run on a caller's behalf. Passing one would
// let a command the policy judged harmless run anything. Upper case; names are
// compared case-insensitively.
var startupKeys = map[string]bool{
	// dynamic loader and glibc (UNSECURE_ENVVARS)
	"GCONV_PATH": true, "GETCONF_DIR": true, "GLIBC_TUNABLES": true, "HOSTALIASES": true, "LOCALDOMAIN": true,
	"LOCPATH": true, "MALLOC_TRACE": true, "NIS_PATH": true, "NLSPATH": true, "RESOLV_HOST_CONF": true,
	"RES_OPTIONS": true, "TZDIR": true,
	// shells
	"BASH_ENV": true, "ENV": true, "PROMPT_COMMAND": true, "PS4": true, "SHELLOPTS": true, "BASHOPTS": true, "ZDOTDIR": true,
	// interpreters and runtimes
	"PYTHONPATH": true, "PYTHONSTARTUP": true, "PYTHONHOME": true, "PYTHONUSERBASE": true, "PYTHONBREAKPOINT": true,
	"RUBYLIB": true, "RUBYOPT": true,
	"PERL5LIB": true, "PERLLIB": true, "PERL5OPT": true, "PERL5DB": true,
	"NODE_OPTIONS": true, "NODE_PATH": true,
	"JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true,
	"DOTNET_STARTUP_HOOKS": true, "CORECLR_PROFILER_PATH": true, "COR_PROFILER_PATH": true,
	// programs run on the caller's behalf
	"PAGER": true, "MANPAGER": true, "EDITOR": true, "VISUAL": true, "LESSOPEN": true, "LESSCLOSE": true,
	"SSH_ASKPASS": true, "SUDO_ASKPASS": true,
}

// startupPrefixes are families of such variables: the dynamic loaders'
// (LD_AUDIT, LD_PRELOAD, LD_DEBUG_OUTPUT … and macOS's DYLD_*) and bash's
// exported functions (BASH_FUNC_name%%).
var startupPrefixes = []string{"LD_", "DYLD_", "BASH_FUNC_"}

// gitSafe are the GIT_* variables a command may be given: identity and
// dates, and the prompt switch. Every other GIT_* variable can make git
// run a program (GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_PAGER,
// GIT_EDITOR, GIT_ASKPASS, GIT_PROXY_COMMAND, GIT_EXEC_PATH,
// GIT_TEMPLATE_DIR's hooks) or read configuration that does
// (GIT_CONFIG_*, GIT_DIR), so the rest are refused as a family.
var gitSafe = map[string]bool{
	"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_AUTHOR_DATE": true,
	"GIT_COMMITTER_NAME": true, "GIT_COMMITTER_EMAIL": true, "GIT_COMMITTER_DATE": true,
	"GIT_TERMINAL_PROMPT": true,
}

// LoaderKey reports whether an environment variable name is a loader or
// start-up injection key (see startupKeys), case-insensitively.
func LoaderKey(name string) bool {
	u := strings.ToUpper(name)
	if startupKeys[u] {
		return true
	}
	if strings.HasPrefix(u, "GIT_") {
		return !gitSafe[u]
	}
	for _, p := range startupPrefixes {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// SensitiveEnv reports whether an environment variable must not reach a command
// outside dangerous mode (docs/coding-tools.md#child-environment): a name that
// looks like it holds a secret, a loader/start-up key, or a value that looks
// like a secret. The policy refuses such caller variables and the process
// launcher drops them again; both ask this one function.
func SensitiveEnv(name, value string) bool {
	return secret.Name(name) || LoaderKey(name) || secret.Contains(value)
}
