package rulefiles

import (
	"context"
	"os"
	"path/filepath"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// ImportUnder is Import of rel, a directory or one rule file under dir,
// for a caller who may read dir and nothing else (a server's client):
// every step of rel, and every file under it, is resolved through dir
// (an os.Root), so that ".." or a link leading out of dir is refused
// however the files change meanwhile. A file's place in its repository
// is its path from dir.
func ImportUnder(ctx context.Context, lib rulesets.Library, dir *os.Root, rel string, force bool) (ImportReport, error) {
	found, err := readUnder(ctx, dir, rel)
	if err != nil {
		return ImportReport{}, err
	}
	return importFound(ctx, lib, found, force), nil
}

func readUnder(ctx context.Context, dir *os.Root, rel string) ([]Found, error) {
	name := filepath.Join(dir.Name(), rel)
	st, err := dir.Stat(rel)
	if err != nil {
		return nil, fault.Wrap(fault.Invalid, err, "cannot import "+name).WithHint("pass a repository's root directory or one rule file")
	}
	if st.IsDir() {
		sub, err := dir.OpenRoot(rel)
		if err != nil {
			return nil, fault.Wrap(fault.Invalid, err, "cannot import "+name)
		}
		defer sub.Close()
		return readRoot(ctx, sub, name)
	}
	slash := filepath.ToSlash(filepath.Clean(rel))
	if kindOf(slash) == "" {
		return nil, notRuleFile(name)
	}
	text, err := readRuleFile(dir, slash)
	if err != nil {
		return nil, fault.Wrap(fault.Invalid, err, "cannot import "+name)
	}
	return Parse(slash, text), nil
}
