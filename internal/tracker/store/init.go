package store

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/gitx"
	"github.com/sudocode/sudocode/internal/tracker"
)

const gitignore = `# The cache is rebuilt from the JSONL files; never commit it.
cache.db
cache.db-*
.lock
.*.tmp-*
`

// gitattributes routes the JSONL files through the merge driver that
// init registers, so that branches that both changed them merge cleanly.
const gitattributes = `*.jsonl merge=sudocode
`

// Init creates .sudocode in dir. On a directory already initialised with
// the same prefix it succeeds without changing anything.
func Init(dir, prefix string) (tracker.InitResult, error) {
	if err := tracker.CheckPrefix(prefix); err != nil {
		return tracker.InitResult{}, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return tracker.InitResult{}, fault.Wrap(fault.Invalid, err, "bad directory")
	}
	tdir := filepath.Join(abs, DirName)
	if err := refuseLink(tdir); err != nil {
		return tracker.InitResult{}, err
	}
	if raw, err := os.ReadFile(filepath.Join(tdir, ConfigFile)); err == nil {
		var cfg Config
		if json.Unmarshal(raw, &cfg) == nil && cfg.Prefix != prefix {
			return tracker.InitResult{}, fault.New(fault.Conflict, "%s is already initialised with prefix %q", tdir, cfg.Prefix).
				WithHint("ids keep their prefix; use the existing one")
		}
		return tracker.InitResult{Success: true, Path: tdir, Prefix: prefix}, nil
	}
	cfg, _ := json.MarshalIndent(Config{Prefix: prefix, Version: 1}, "", "  ")
	files := []struct {
		name string
		data []byte
	}{
		{".gitignore", []byte(gitignore)}, {".gitattributes", []byte(gitattributes)},
		{filepath.Join(SpecsDir, ".gitkeep"), nil},
		{ConfigFile, append(cfg, '\n')}, // last: its presence marks a complete tracker
	}
	for _, f := range files {
		if err := writeAtomic(filepath.Join(tdir, f.name), f.data); err != nil {
			return tracker.InitResult{}, fault.Wrap(fault.Unavailable, err, "cannot create "+tdir)
		}
	}
	registerMergeDriver(abs)
	return tracker.InitResult{Success: true, Path: tdir, Prefix: prefix}, nil
}

// registerMergeDriver tells git, when dir is in a repository, how to run
// the JSONL merge driver. Without git it does nothing: the files still
// work, merges are just line-based.
func registerMergeDriver(dir string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	o := gitx.Options{Dir: dir, Locks: true}
	if _, err := gitx.Output(ctx, o, 1<<16, "rev-parse", "--git-dir"); err != nil {
		return
	}
	gitx.Run(ctx, o, nil, "config", "merge.sudocode.name", "sudocode JSONL merge")
	gitx.Run(ctx, o, nil, "config", "merge.sudocode.driver", "sudocode merge-driver %O %A %B %P")
}
