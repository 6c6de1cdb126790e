package orchestrator

import (
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
)

// BranchName is the one reading of a branch named by a caller (create_task's
// branch, branch://): surrounding spaces dropped, and a full ref
// "refs/heads/x" is the branch x. Any other "refs/" name (a tag, a remote
// branch, refs/heads/ with nothing after it, or a branch that would itself
// be called refs/…) is refused: git would otherwise create
// refs/heads/refs/…, a branch no one meant. The rest of git's rules are
// checked by git where the branch is created.
func BranchName(s string) (string, error) {
	name := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(name, "refs/heads/"); ok {
		name = rest
	}
	if name == "" || strings.HasPrefix(name, "refs/") {
		return "", fault.New(fault.Invalid, "invalid branch %q: give a branch name such as feature/auth, or its full ref refs/heads/feature/auth; other refs (refs/tags/…, refs/remotes/…) are not branches", s)
	}
	return name, nil
}
