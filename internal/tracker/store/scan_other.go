//go:build !unix

package store

import (
	"errors"
	"io/fs"
	"os"

	"github.com/sudocode/sudocode/internal/fault"
)

// scan fills s with the stamp of every shard file present (see the unix
// version).
func (rs *records) scan(s *shardStats) error {
	*s = shardStats{}
	for i := range s {
		p := shardPath(i)
		fi, err := rs.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fault.Wrap(fault.Unavailable, err, "cannot read "+p)
		}
		s[i] = fileStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), present: true}
	}
	return nil
}

// statRegular is the stamp of name in directory d when it is a regular
// file; elsewhere than unix, ok is always false (the long way is taken).
func statRegular(d *os.File, name string) (fileStamp, bool) { return fileStamp{}, false }
