package store

import (
	"crypto/rand"
	"os"
	"path"
	"path/filepath"
)

// writeAtomic replaces path with data.
func writeAtomic(path string, data []byte) error {
	return writeAtomicFunc(path, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// writeAtomicFunc replaces path with what write writes (see writeAtomicAt),
// creating its directory when needed.
func writeAtomicFunc(path string, write func(*os.File) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer root.Close()
	return writeAtomicAt(root, filepath.Base(path), write)
}

// writeAtomicAt replaces name, inside root, with what write writes: into a
// temporary file in the same directory, renamed over name only when
// complete, so readers and a killed process see either the old file or
// the new one, never a part. The file is not fsynced: a rename over an
// existing file is what protects against a killed process, and on Linux
// filesystems (ext4's auto_da_alloc, xfs, btrfs) it also orders the data
// before the rename on a crash; a sync per change would cost more than
// the change.
func writeAtomicAt(root *os.Root, name string, write func(*os.File) error) error {
	dir, base := path.Split(filepath.ToSlash(name))
	tmp := dir + "." + base + ".tmp-" + rand.Text()[:12]
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}
