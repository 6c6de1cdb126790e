package orchestrator

import (
	"context"
	"strings"
)

// identity is who the user's own commits in the checkout are made as
// (git's config: the repository's, then the user's), as the variables
// git reads, for the agent's process: its box has a home of its own,
// without the user's git config, where a commit would otherwise fail for
// want of an identity. Variables the environment sets already are left to
// it (a server given GIT_AUTHOR_* runs its agents as that); nothing when
// git knows no identity (the merge then commits as sudocode).
func (o *Orchestrator) identity(ctx context.Context) []string {
	out, err := git(ctx, o.opts.Repo, "config", "--get-regexp", `^user\.(name|email)$`)
	if err != nil {
		return nil // exit 1: neither is set
	}
	value := map[string]string{} // git lists the user's settings before the repository's: the last one wins, as for git
	for line := range strings.SplitSeq(out, "\n") {
		if key, v, ok := strings.Cut(line, " "); ok {
			value[strings.ToLower(key)] = v
		}
	}
	var env []string
	for key, names := range map[string][]string{
		"user.name":  {"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"},
		"user.email": {"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"},
	} {
		v, ok := value[key]
		for _, name := range names {
			if _, set := o.opts.Env.LookupEnv(name); ok && !set {
				env = append(env, name+"="+v)
			}
		}
	}
	return env
}
