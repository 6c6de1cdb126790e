package workspace

import "strings"

// The tools that write files (apply_patch) refuse two places of a
// workspace, whatever the spelling: git's directory, whose hooks and
// config run code at the user's next git command, and the project's
// orchestrator settings, .sudocode/agent.json, whose commands run at task
// start, merge and end once the user trusted the file. Names compare
// without regard to case (a case-insensitive file system opens
// .SUDOCODE/Agent.json as the same file), and both the path as given and
// where it leads through links are checked. A command run by exec_command
// can still write them; there the sandbox and the settings' trust (their
// digest changes, so they stop running) are the walls.

// protectedWhy says why rel (a workspace-relative POSIX path) is
// protected, "" when it is not.
func protectedWhy(rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		switch {
		case strings.EqualFold(p, ".git"):
			return "it is in git's directory (hooks and config there run code)"
		case strings.EqualFold(p, ".sudocode") && i == len(parts)-2 && strings.EqualFold(parts[i+1], "agent.json"):
			return "it holds the project's orchestrator commands, which the user must trust"
		}
	}
	return ""
}

// WritableTarget is WriteTarget for a tool that writes p: it also refuses
// a protected path (see protectedWhy) with PERMISSION_DENIED.
func (r *Root) WritableTarget(p string) (Resolved, error) {
	res, err := r.WriteTarget(p)
	if err != nil {
		return res, err
	}
	why := protectedWhy(res.Rel)
	if why == "" {
		if end, err := resolveLenient(res.Abs); err == nil {
			if rel, ok := r.rel(end); ok {
				why = protectedWhy(rel)
			}
		}
	}
	if why != "" {
		return Resolved{}, Errorf(CodePermissionDenied, map[string]any{"path": p},
			"write denied: %s is protected: %s; only the user changes it, outside the coding tools", p, why)
	}
	return res, nil
}
