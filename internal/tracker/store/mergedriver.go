package store

import (
	"context"
	"strings"
	"time"

	"github.com/sudocode/sudocode/internal/gitx"
)

// The tracker's .gitattributes routes the record files through the merge
// driver "sudocode", but git keeps what a driver runs in .git/config,
// which a clone does not copy: without it git merges the files as text.
// Init registers the driver; so does, saying so, any command that reads
// the files whole: the first in a clone (its cache, never committed, is
// built from nothing), or after a pull that changed many records.

// mergeDriverCommand is what git runs for the driver.
const mergeDriverCommand = "sudocode merge-driver %O %A %B %P"

// mergeDriverSetup is the command that registers the driver by hand.
const mergeDriverSetup = `git config merge.sudocode.driver "` + mergeDriverCommand + `"`

// registerMergeDriver tells git, when dir is in a repository, how to run
// the JSONL merge driver. Without git it does nothing: the files still
// work, merges are just line-based.
func registerMergeDriver(dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	o := gitx.Options{Dir: dir, Locks: true}
	if err := gitx.Run(ctx, o, nil, "config", "merge.sudocode.name", "sudocode JSONL merge"); err != nil {
		return err
	}
	return gitx.Run(ctx, o, nil, "config", "merge.sudocode.driver", mergeDriverCommand)
}

// MergeDriverState says whether git in the repository around dir runs the
// tracker's merge driver: "registered", "missing", "other" (the name is
// taken by another command, left alone), or "no-git" (dir is in no
// repository, or git is not installed).
func MergeDriverState(ctx context.Context, dir string) string {
	o := gitx.Options{Dir: dir}
	if _, err := gitx.Output(ctx, o, 1<<16, "rev-parse", "--git-dir"); err != nil {
		return "no-git"
	}
	out, err := gitx.Output(ctx, o, 1<<16, "config", "--get", "merge.sudocode.driver")
	switch got := strings.TrimSpace(string(out)); {
	case err != nil || got == "":
		return "missing"
	case got == mergeDriverCommand:
		return "registered"
	default:
		return "other"
	}
}

// EnsureMergeDriver registers the merge driver in a repository whose git
// lacks it and returns what it did, for the user: "" when nothing was
// needed.
func EnsureMergeDriver(ctx context.Context, root string) string {
	if MergeDriverState(ctx, root) != "missing" {
		return ""
	}
	if err := registerMergeDriver(root); err != nil {
		return "git has no merge driver for the tracker's record files in this clone, and registering it failed (" +
			err.Error() + "): run " + mergeDriverSetup + " so that merges of them do not conflict"
	}
	return "registered the tracker's merge driver for this clone (" + mergeDriverSetup + "), so that git merges the record files without conflicts"
}
