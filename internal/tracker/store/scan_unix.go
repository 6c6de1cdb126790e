//go:build unix

package store

import (
	"errors"
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/unix"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
)

// scan fills s with the stamp of every shard file present: the names in
// each kind's directory (opened through the tracker's root, so never
// outside it), then one fstatat per shard file among them. A link is
// stamped as itself: reading one is refused.
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
		names, err := d.Readdirnames(-1)
		if err != nil {
			d.Close()
			return fault.Wrap(fault.Unavailable, err, "cannot read "+dir)
		}
		fd := int(d.Fd())
		for _, name := range names {
			shard, ok := tracker.ShardOfFileName(name)
			if !ok {
				continue
			}
			err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
			if err == unix.ENOENT {
				continue // gone since the listing
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

// statRegular is the stamp of name in directory d when it is a regular
// file (not a link); ok false for anything else, or an error.
func statRegular(d *os.File, name string) (fileStamp, bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(d.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fileStamp{}, false
	}
	return fileStamp{size: st.Size, mtime: st.Mtim.Nano(), present: true}, true
}
