package gitx

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
)

// GlobalConfig is the value of key in the user's own git configuration
// (~/.gitconfig or $XDG_CONFIG_HOME/git/config), "" when unset or when
// git is missing. No repository is involved: git runs in / with the
// system configuration off, so nothing a repository controls is read.
func GlobalConfig(ctx context.Context, key string) string {
	cmd := exec.CommandContext(ctx, "git", "config", "--global", "--get", "--", key)
	cmd.Dir = "/"
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"}
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	if cmd.Run() != nil {
		return ""
	}
	return strings.TrimSpace(out.String())
}
