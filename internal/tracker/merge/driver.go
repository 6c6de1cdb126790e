package merge

import (
	"fmt"
	"os"
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
	tmp := ours + ".sudocode-merge"
	err = os.WriteFile(tmp, out, 0o644)
	if err == nil {
		err = os.Rename(tmp, ours)
	}
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("merge: cannot write the result: %w", err)
	}
	return renames, nil
}
