package store

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/fault"
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
		// A clone's: its git has not been told of the driver yet.
		if MergeDriverState(context.Background(), abs) == "missing" {
			registerMergeDriver(abs)
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
	if MergeDriverState(context.Background(), abs) != "no-git" {
		registerMergeDriver(abs) // a failure is told by the first command (mergedriver.go)
	}
	return tracker.InitResult{Success: true, Path: tdir, Prefix: prefix}, nil
}
