package agent

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// baseEnv are the server variables every agent process inherits: what a
// program needs to run, find its home, print text and reach the network
// through the configured proxy. Patterns are exact names or prefixes
// ending in '*'. Nothing else of the server's environment passes unless
// the adapter's Credentials or the task's config.pass_env name it: cloud
// keys (AWS_*), tokens (GITHUB_TOKEN, NPM_TOKEN), agent sockets
// (SSH_AUTH_SOCK), and GIT_DIR and friends, which would point git at the
// user's checkout.
var baseEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "COLORTERM", "TMPDIR", "TZ",
	"LC_*", "XDG_*",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
	// The identity the agent's commits carry, when the server was given one.
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
}

// PassEnvKey is the config key that lists further server variables a
// task's process inherits (names, or prefixes ending in '*').
const PassEnvKey = "pass_env"

var envPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\*?$`) })

// PassEnv returns config.pass_env, checked.
func PassEnv(cfg map[string]any) ([]string, error) {
	names, err := configStrings(cfg, PassEnvKey)
	if err != nil {
		return nil, err
	}
	for i, n := range names {
		if !envPattern().MatchString(n) {
			return nil, fmt.Errorf("config.%s[%d] is %q: want a variable name, or a prefix ending in * such as AWS_*", PassEnvKey, i, n)
		}
	}
	return names, nil
}

// Environ is the whole environment of a process of adapter a for spec,
// and the one place that decides it: from parent (the server's
// environment, "NAME=value" strings) only the base variables, the
// adapter's Credentials and the names in config.pass_env; then extra (the
// adapter's Invocation.Env) and PWD, which win over inherited values.
func Environ(a Adapter, spec RunSpec, extra, parent []string) ([]string, error) {
	pass, err := PassEnv(spec.Config)
	if err != nil {
		return nil, err
	}
	allowed := append(append(append([]string(nil), baseEnv...), a.Credentials()...), pass...)
	var env []string
	for _, kv := range parent {
		k, _, _ := strings.Cut(kv, "=")
		if matchesAny(k, allowed) {
			env = append(env, kv)
		}
	}
	env = append(env, extra...)
	if spec.Dir != "" {
		env = append(env, "PWD="+spec.Dir)
	}
	return env, nil
}

func matchesAny(name string, patterns []string) bool {
	for _, p := range patterns {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		} else if name == p {
			return true
		}
	}
	return false
}

// LookPath is exec.LookPath with pathEnv as PATH ("" for the server's),
// with its results and errors: a task's programs are found on the PATH of
// the user it runs for, which is not the process's when a command runs
// in-process.
func LookPath(bin, pathEnv string) (string, error) {
	if strings.ContainsRune(bin, filepath.Separator) || pathEnv == "" {
		return exec.LookPath(bin)
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "." // an empty entry is the working directory
		}
		p := filepath.Join(d, bin)
		probe := p
		if !filepath.IsAbs(p) {
			probe = "." + string(filepath.Separator) + p // a path to check, not a name to look up
		}
		if _, err := exec.LookPath(probe); err != nil {
			continue
		}
		if !filepath.IsAbs(p) {
			return p, &exec.Error{Name: bin, Err: exec.ErrDot}
		}
		return p, nil
	}
	return "", &exec.Error{Name: bin, Err: exec.ErrNotFound}
}
