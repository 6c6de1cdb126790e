package store

import (
	"errors"
	"io/fs"
)

// fileWatch keeps, for a long-lived Repo, the shard files' stamps as last
// seen and a watcher that names the files changed since (watch_linux.go).
type fileWatch struct {
	dir  string
	w    *watcher
	last *shardStats // nil until the first full scan after the watcher started
}

// WatchFiles makes r, a server's Repo that compares the cache with the
// files on every request (Recheck), learn which files changed from the
// kernel instead of stating every shard file each time, where the kernel
// can tell (Linux).
func (r *Repo) WatchFiles() {
	if r.watch == nil {
		r.watch = &fileWatch{dir: r.Dir}
	}
}

// scanShards returns the stamps of the shard files now: through the
// watcher when there is one that has seen everything since its last full
// scan, else by a full scan.
func (r *Repo) scanShards(rs *records) (*shardStats, error) {
	fw := r.watch
	now := new(shardStats)
	if fw == nil {
		return now, rs.scan(now)
	}
	if fw.w != nil && fw.last != nil {
		if idx, all := fw.w.changed(); !all && restamp(rs, fw.last, idx) {
			*now = *fw.last
			return now, nil
		}
	}
	// A new watcher first, then the full scan: no change falls between.
	fw.stop()
	fw.w = newWatcher(fw.dir)
	if err := rs.scan(now); err != nil {
		return nil, err
	}
	if fw.w != nil {
		fw.last = new(shardStats)
		*fw.last = *now
	}
	return now, nil
}

// stop closes the watcher, if any; the next scan is a full one.
func (fw *fileWatch) stop() {
	if fw == nil {
		return
	}
	if fw.w != nil {
		fw.w.close()
	}
	fw.w, fw.last = nil, nil
}

// restamp takes again the stamps of the files at idx in s; false when one
// cannot be read (the full scan that follows reports why).
func restamp(rs *records, s *shardStats, idx []int) bool {
	for _, i := range idx {
		st, err := rs.stamp(shardPath(i))
		if err != nil {
			return false
		}
		s[i] = st
	}
	return true
}

// stamp is file p's stamp now; an absent file has the zero stamp.
func (rs *records) stamp(p string) (fileStamp, error) {
	fi, err := rs.root.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fileStamp{}, nil
	}
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), present: true}, nil
}
