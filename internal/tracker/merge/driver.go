package merge

import (
	"fmt"
	"os"
	"path/filepath"
)

// Driver is git's merge driver, `sudocode merge-driver %O %A %B %P`: it
// merges the files base, ours and theirs, three versions of the tracker
// file at path in the repository (git's %P, which gives the kind and is
// the file named in errors), and writes the result over ours, the only
// file git takes back. On any error ours is left as it was, so git
// reports a conflict. It returns the renames, for the caller to report.
func Driver(base, ours, theirs, path string) ([]Rename, error) {
	kind, err := KindOf(path)
	if err != nil {
		return nil, err
	}
	var sides [3][]byte
	for i, f := range []string{base, ours, theirs} {
		if sides[i], err = os.ReadFile(f); err != nil {
			return nil, err
		}
	}
	out, renames, err := threeWay(kind, path, sides[0], sides[1], sides[2])
	if err != nil {
		return nil, err
	}
	// A new file beside ours (never a name that could be there already,
	// or a link), renamed over it once whole.
	f, err := os.CreateTemp(filepath.Dir(ours), ".sudocode-merge-*")
	if err == nil {
		_, err = f.Write(out)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(f.Name(), 0o644)
		}
		if err == nil {
			err = os.Rename(f.Name(), ours)
		}
		if err != nil {
			os.Remove(f.Name())
		}
	}
	if err != nil {
		return nil, fmt.Errorf("merge: cannot write the result: %w", err)
	}
	return renames, nil
}
