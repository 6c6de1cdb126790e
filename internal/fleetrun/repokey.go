package fleetrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/gitx"
)

// RepoKey is the fleet's name of the repository around dir: its top
// directory's name (lower-case letters, digits and dashes, at most 40)
// and a hash of its first commit, the same in every clone of it.
func RepoKey(ctx context.Context, dir string) (string, error) {
	top, err := gitx.Output(ctx, gitx.Options{Dir: dir}, 4096, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fault.Wrap(fault.Invalid, err, dir+" is not in a git repository")
	}
	roots, err := gitx.Output(ctx, gitx.Options{Dir: dir}, 1<<16, "rev-list", "--max-parents=0", "HEAD")
	if err != nil {
		return "", fault.Wrap(fault.Invalid, err, "the repository at "+strings.TrimSpace(string(top))+" has no commit yet")
	}
	root, _, _ := strings.Cut(strings.TrimSpace(string(roots)), "\n")
	sum := sha256.Sum256([]byte(root))
	name := slug(filepath.Base(strings.TrimSpace(string(top))), 40)
	if name == "" {
		name = "repo"
	}
	return name + "-" + hex.EncodeToString(sum[:])[:10], nil
}

// slug is s in lower-case letters, digits and single dashes, at most max
// bytes.
func slug(s string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= max {
			break
		}
	}
	out := b.String()
	if len(out) > max {
		out = strings.TrimRight(out[:max], "-")
	}
	return out
}
