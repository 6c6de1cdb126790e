package gitx

import (
	"context"
	"os"
	"strings"
)

// GlobalConfig is the value of key in the user's own git configuration
// (~/.gitconfig or $XDG_CONFIG_HOME/git/config), "" when unset or when
// git is missing. No repository is involved: git runs in / with the
// system configuration off, so nothing a repository controls is read.
func GlobalConfig(ctx context.Context, key string) string {
	out, err := Output(ctx, Options{Dir: string(os.PathSeparator)}, 1<<16, "config", "--global", "--get", "--", key)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
