//go:build !linux

package workspace

import (
	"os"
)

// readDirents reads a directory's entries (the portable way).
func readDirents(f *os.File) ([]Dirent, error) {
	des, err := f.ReadDir(-1)
	out := make([]Dirent, len(des))
	for i, de := range des {
		out[i] = Dirent{Name: de.Name(), Type: de.Type()}
	}
	return out, err
}
