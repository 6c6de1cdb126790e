//go:build unix

package store

import (
	"errors"
	"io/fs"
	"path"

	"golang.org/x/sys/unix"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// scan fills s with the stamp of every shard file present: one fstatat
// per possible file, relative to its kind's directory (opened through the
// tracker's root, so never outside it). A link is stamped as itself:
// reading one is refused.
func (rs *records) scan(s *shardStats) error {
	*s = shardStats{}
	var st unix.Stat_t
	for _, k := range tracker.RecordKinds {
		dir := path.Join(tracker.RecordsDir, k.Dir())
		d, err := rs.root.Open(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fault.Wrap(fault.Unavailable, err, "cannot read "+dir)
		}
		fd := int(d.Fd())
		for shard, name := range shardNames {
			err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
			if err == unix.ENOENT {
				continue
			}
			if err != nil {
				d.Close()
				return fault.Wrap(fault.Unavailable, err, "cannot read "+path.Join(dir, name))
			}
			s[shardIndex(k, shard)] = fileStamp{size: st.Size, mtime: st.Mtim.Nano(), present: true}
		}
		d.Close()
	}
	return nil
}
