package workspace

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/gitx"
)

// Visibility filters for recursive listing and search
// (docs/coding-tools.md#visibility-filters).
//
// Filters apply to the entries below the directory the caller named (the
// named path itself is never filtered out): a name starting with "." is
// hidden; a name in defaultExcluded, or a path git reports as ignored, is
// ignored. include_ignored lifts both kinds of ignored; hidden names also
// need include_hidden. Excluded directories are pruned before descent.

// defaultExcluded are the directory (or file) names the profile leaves out
// of listings and searches unless include_ignored is set.
var defaultExcluded = map[string]bool{
	".git": true, ".reference": true, "node_modules": true, "target": true, "dist": true, "build": true,
	".venv": true, "venv": true, ".tox": true, ".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true,
	"__pycache__": true,
}

// DefaultExcluded reports a name the profile leaves out of listings and
// searches unless include_ignored is set.
func DefaultExcluded(name string) bool { return defaultExcluded[name] }

// Visibility decides which entries below one base directory are shown.
type Visibility struct {
	includeHidden, includeIgnored bool
	// gitIgnored holds the paths, relative to the base directory, that git
	// reports as ignored (a directory stands for everything below it); nil
	// when git is missing or the base is not in a work tree.
	gitIgnored map[string]bool
}

// IgnoredByGit reports whether git ignores the path relative to the base.
func (v *Visibility) IgnoredByGit(relToBase string) bool { return v.gitIgnored[relToBase] }

// Visible reports whether the entry name at relToBase (its path relative
// to the base, "/"-separated) is shown, and whether it counts as ignored
// (is_ignored: shown only because include_ignored is set). parentIgnored
// is the ignored state of its directory, which descendants inherit.
func (v *Visibility) Visible(relToBase, name string, parentIgnored bool) (show, ignored bool) {
	if !v.includeHidden && strings.HasPrefix(name, ".") {
		return false, false
	}
	ignored = parentIgnored || defaultExcluded[name] || v.gitIgnored[relToBase]
	if ignored && !v.includeIgnored {
		return false, true
	}
	return true, ignored
}

// NewVisibility prepares the filters for a walk of the directory baseRel.
// withGit asks for git's ignore list even when include_ignored is set
// (list_dir reports is_ignored); warnings collects what the caller should
// pass on.
func NewVisibility(ctx context.Context, r *Root, baseRel string, includeHidden, includeIgnored, withGit bool, warnings *[]string) (*Visibility, error) {
	v := &Visibility{includeHidden: includeHidden, includeIgnored: includeIgnored}
	if includeIgnored && !withGit {
		return v, nil
	}
	ign, warn, err := ignoredByGit(ctx, r.Join(baseRel))
	if err != nil {
		return nil, err
	}
	if warn != "" {
		*warnings = append(*warnings, warn)
	}
	v.gitIgnored = ign
	return v, nil
}

// ignoreGitTimeout bounds the one git process a walk runs; a variable so
// tests can shorten it.
var ignoreGitTimeout = 10 * time.Second

// ignoreGitBinary names the git executable used for ignore rules; tests
// point it at a missing one.
var ignoreGitBinary = "git"

// ignoredByGit asks git (one sandboxed process) which paths under dir are
// ignored: untracked files and directories matching .gitignore, the
// repository's info/exclude and the user's global excludes file. Tracked
// files are never ignored (git's own rule). With --directory a wholly
// ignored directory is reported once, so its contents are pruned with it.
// Returns nil (no filtering) when git is missing or dir is not in a work
// tree; a warning when git fails otherwise; TIMEOUT when it runs too long.
func ignoredByGit(ctx context.Context, dir string) (map[string]bool, string, error) {
	o := gitx.Options{Dir: dir, Binary: ignoreGitBinary, Timeout: ignoreGitTimeout, WaitDelay: time.Second}
	stdout, err := gitx.Output(ctx, o, 256<<20, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	var nf *gitx.NotFoundError
	var te *gitx.TimeoutError
	var ee *gitx.ExitError
	switch {
	case err == nil:
	case errors.As(err, &nf):
		return nil, "", nil
	case errors.As(err, &te):
		return nil, "", Errorf(CodeTimeout, map[string]any{"seconds": ignoreGitTimeout.Seconds()},
			"git took longer than %s to list ignored paths; retry, or pass include_ignored", ignoreGitTimeout)
	case ctx.Err() != nil:
		return nil, "", context.Cause(ctx)
	case errors.As(err, &ee) && (strings.Contains(ee.Stderr, "not a git repository") || strings.Contains(ee.Stderr, "must be run in a work tree")):
		return nil, "", nil
	default:
		msg := err.Error()
		if ee != nil && strings.TrimSpace(ee.Stderr) != "" {
			msg = strings.TrimSpace(ee.Stderr)
		}
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return nil, "git ignore rules not applied: " + msg, nil
	}
	out := stdout
	ign := make(map[string]bool, bytes.Count(out, []byte{0}))
	for len(out) > 0 {
		i := bytes.IndexByte(out, 0)
		if i < 0 {
			i = len(out)
		}
		p := strings.TrimSuffix(string(out[:i]), "/")
		out = out[min(i+1, len(out)):]
		// "./" is the base itself: named explicitly, it is not filtered,
		// and neither is what it holds on its account.
		if p != "" && p != "." {
			ign[p] = true
		}
	}
	return ign, "", nil
}

// StaticVisibility is the filters that need no git: hidden names and the
// default-excluded ones, for a walk that starts before git's ignore list
// is in.
func StaticVisibility() *Visibility { return &Visibility{} }
