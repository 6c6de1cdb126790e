package store

import (
	"os"
	"path/filepath"
)

// writeAtomic replaces path with data.
func writeAtomic(path string, data []byte) error {
	return writeAtomicFunc(path, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// writeAtomicFunc replaces path with what write writes: into a temporary
// file in the same directory, renamed over path only when complete, so
// readers and a killed process see either the old file or the new one,
// never a part. The file is not fsynced: a rename over an existing file
// is what protects against a killed process, and on Linux filesystems
// (ext4's auto_da_alloc, xfs, btrfs) it also orders the data before the
// rename on a crash; a sync per change would cost more than the change.
func writeAtomicFunc(path string, write func(*os.File) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
