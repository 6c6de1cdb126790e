package procs

import (
	"context"
	"time"

	"github.com/sudocode/sudocode/internal/gitx"
)

// userGitIdentity is the user's git name and email: GIT_AUTHOR_* (then
// GIT_COMMITTER_*) from the server's environment, else the user's global
// git configuration.
func userGitIdentity(getenv func(string) (string, bool)) gitIdentity {
	var id gitIdentity
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		if v, ok := getenv(k); ok && v != "" && id.Name == "" {
			id.Name = v
		}
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		if v, ok := getenv(k); ok && v != "" && id.Email == "" {
			id.Email = v
		}
	}
	if id.Name != "" && id.Email != "" {
		return id
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if id.Name == "" {
		id.Name = gitx.GlobalConfig(ctx, "user.name")
	}
	if id.Email == "" {
		id.Email = gitx.GlobalConfig(ctx, "user.email")
	}
	return id
}
