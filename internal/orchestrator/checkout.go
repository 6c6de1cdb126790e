package orchestrator

import (
	"context"
	"strings"

	"github.com/sudocode/sudocode/internal/gitx"
)

// Checkout is the user's own checkout as the surfaces show it beside the
// tasks: what HEAD is and how many uncommitted changes it holds, which
// tasks never touch.
type Checkout struct {
	Head    string // the commit HEAD names; "" before the first commit
	Branch  string // the branch HEAD is on; "" when detached
	Changes int    // changed, staged and untracked paths (untracked directories as one)
}

// Checkout reads the user's checkout in one git status, taking no lock in
// it (git's index refresh, which a lock would write, is the user's git's
// to do).
func (o *Orchestrator) Checkout(ctx context.Context) (Checkout, error) {
	out, err := runGit(ctx, gitx.Options{Dir: o.Repo()}, "status", "--porcelain=v2", "--branch", "--untracked-files=normal")
	if err != nil {
		return Checkout{}, err
	}
	return parseCheckout(out), nil
}

// parseCheckout reads git status --porcelain=v2 --branch.
func parseCheckout(out string) Checkout {
	var c Checkout
	for _, line := range strings.Split(out, "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "# branch.oid "):
			if oid := strings.TrimPrefix(line, "# branch.oid "); oid != "(initial)" {
				c.Head = oid
			}
		case strings.HasPrefix(line, "# branch.head "):
			if head := strings.TrimPrefix(line, "# branch.head "); head != "(detached)" {
				c.Branch = head
			}
		case strings.HasPrefix(line, "#"):
		default:
			c.Changes++
		}
	}
	return c
}
