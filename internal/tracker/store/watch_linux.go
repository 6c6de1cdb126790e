package store

import (
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sudocode/sudocode/internal/tracker"
)

// watcher learns from inotify which shard files changed since it last
// looked. A server's Repo compares the cache with the files on every
// request; with a watcher it stats only the files named by an event
// instead of every shard file (512 of them at 100,000 issues), while a
// change by any process (a write, a rename over, a truncate, a touch) is
// still seen: the kernel queues the event before the changing call
// returns. An overflowed queue, or a kind's directory removed or moved,
// means a full scan and a new watcher.
type watcher struct {
	fd      int
	wds     map[int32]tracker.RecordKind
	records int32 // the records directory's watch: a kind's directory made or removed there means a full scan
}

const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR

// newWatcher watches the records directory of the tracker in dir and the
// kinds' directories in it; nil when the records directory is missing or
// not a plain directory, or a kind's directory is not one (the Repo then
// scans).
func newWatcher(dir string) *watcher {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	w := &watcher{fd: fd, wds: map[int32]tracker.RecordKind{}}
	records := filepath.Join(dir, tracker.RecordsDir)
	wd, err := unix.InotifyAddWatch(fd, records, watchMask)
	if err != nil {
		w.close()
		return nil
	}
	w.records = int32(wd)
	for _, k := range tracker.RecordKinds {
		wd, err := unix.InotifyAddWatch(fd, filepath.Join(records, k.Dir()), watchMask)
		if err == unix.ENOENT {
			continue // made later: the records directory's watch says so
		}
		if err != nil {
			w.close()
			return nil
		}
		w.wds[int32(wd)] = k
	}
	return w
}

func (w *watcher) close() { unix.Close(w.fd) }

// changed returns the indexes (see shardIndex) of the shard files named by
// the events since the last call; all true when only a full scan can tell.
func (w *watcher) changed() (idx []int, all bool) {
	var buf [16 << 10]byte
	for {
		n, err := unix.Read(w.fd, buf[:])
		if err == unix.EAGAIN {
			return idx, false
		}
		if err != nil || n <= 0 {
			return nil, true
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&(unix.IN_Q_OVERFLOW|unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 {
				return nil, true
			}
			if ev.Wd == w.records {
				if _, ok := kindOfDir(cString(name)); ok {
					return nil, true
				}
				continue
			}
			k, ok := w.wds[ev.Wd]
			if !ok {
				continue
			}
			if shard, ok := tracker.ShardOfFileName(cString(name)); ok {
				idx = append(idx, shardIndex(k, shard))
			}
		}
	}
}

// cString is the name of an event, without its NUL padding.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// kindOfDir is the kind whose directory is named name.
func kindOfDir(name string) (tracker.RecordKind, bool) {
	for _, k := range tracker.RecordKinds {
		if k.Dir() == name {
			return k, true
		}
	}
	return 0, false
}
