package gitx

import (
	"fmt"
	"os"
	"strings"
)

// environ is the whole environment of a git process, built from scratch:
// of the server's environment only what git needs to find itself and the
// user's own configuration (and the ceiling of its search for a
// repository), never GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_*,
// GIT_EXEC_PATH or anything else that would point git elsewhere or change
// what it runs. extra holds the caller's explicit variables.
func environ(locks bool, extra []string) ([]string, error) {
	env := []string{
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat",
		"PAGER=cat",
		"GIT_EDITOR=true",
		"GIT_ALLOW_PROTOCOL=none", // no transport at all, whatever protocol.* says
		"GIT_NO_LAZY_FETCH=1",     // a partial clone's missing objects are not fetched
		"GIT_ADVICE=0",
		"LC_ALL=C", // stable messages, which callers match
	}
	if !locks {
		env = append(env, "GIT_OPTIONAL_LOCKS=0")
	}
	// GIT_CEILING_DIRECTORIES only stops git looking further up for a
	// repository: it can make git find less, never more.
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "GIT_CEILING_DIRECTORIES"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for _, kv := range extra {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || !callerVariable(k) {
			return nil, fmt.Errorf("gitx: variable %q may not be set by a caller (only GIT_INDEX_FILE, GIT_AUTHOR_* and GIT_COMMITTER_*)", k)
		}
		env = append(env, kv)
	}
	return env, nil
}

// callerVariable reports whether a caller may set k: the variables that
// choose an index or an identity, none of which makes git run anything.
func callerVariable(k string) bool {
	switch k {
	case "GIT_INDEX_FILE", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
		"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE":
		return true
	}
	return false
}
