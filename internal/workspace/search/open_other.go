//go:build !linux

package search

import (
	"io"
	"os"
)

// filesOpenByFD: openInDir opens through the directory's os.Root, which
// stays open while files of the directory are queued.
const filesOpenByFD = false

// openInDir opens the regular file name in the directory d for reading,
// through its anchored os.Root.
func openInDir(d *dirRef, name string) (io.ReadCloser, int64, bool) {
	f, err := d.root.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, false
	}
	return f, fi.Size(), true
}
