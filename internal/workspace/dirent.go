package workspace

import (
	"io/fs"
	"os"
	"slices"
	"strings"
)

// The sorted directory reading the walkers (list_dir, list_files,
// search_text) share.

// Dirent is one directory entry as the walkers see it: the type comes from
// the directory read itself (no stat).
type Dirent struct {
	Name string
	Type fs.FileMode // fs.ModeDir, fs.ModeSymlink, 0 for a regular file, other type bits
}

func (d Dirent) IsDir() bool     { return d.Type&fs.ModeDir != 0 }
func (d Dirent) IsSymlink() bool { return d.Type&fs.ModeSymlink != 0 }
func (d Dirent) IsRegular() bool { return d.Type&fs.ModeType == 0 }

// readDirSorted reads the directory d (anchored: it can only be inside the
// workspace) and returns its entries in path order: sorted by name, a
// directory's name compared as if followed by "/", so that a depth-first
// walk yields paths in plain byte order ("a-b" before "a/x").
func readDirSorted(d *os.Root) ([]Dirent, error) {
	f, err := d.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadDirFileSorted(f)
}

// ReadDirFileSorted is readDirSorted on an open directory.
func ReadDirFileSorted(f *os.File) ([]Dirent, error) { return sortDirents(readDirents(f)) }

// sortDirents puts a directory's entries in path order; a read that
// failed part way keeps what it read.
func sortDirents(out []Dirent, err error) ([]Dirent, error) {
	if err != nil && len(out) == 0 {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Dirent) int { return comparePathKey(a.Name, a.IsDir(), b.Name, b.IsDir()) })
	return out, nil
}

// comparePathKey compares a and b as name+"/" for directories and name for
// everything else, without building the strings.
func comparePathKey(a string, aDir bool, b string, bDir bool) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	next := func(s string, dir bool) int {
		if len(s) > n {
			return int(s[n])
		}
		if dir {
			return '/'
		}
		return -1
	}
	ca, cb := next(a, aDir), next(b, bDir)
	switch {
	case ca < cb:
		return -1
	case ca > cb:
		return 1
	}
	if len(a) != len(b) { // one is the other plus "/..." where the other is a dir
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return 0
}

// JoinRel joins a workspace-relative directory and a name.
func JoinRel(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}
