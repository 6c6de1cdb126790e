package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// planBox turns a policy into the binds of its box, and the symbolic
// links along their paths: a granted path is bound at its canonical
// place, and each link met on the way to it (/bin → usr/bin, a home
// under a linked /home) is made again in the box, so both spellings work
// there as on the host. Paths under /proc and /dev are the box's own and
// are not bound, but for what lies inside /dev/shm (a workspace on tmpfs). A path that is missing is left out.
func planBox(p Policy) (binds []bind, links []boxLink) {
	seen := map[string]int{}
	add := func(paths []string, kind bind) {
		for _, path := range paths {
			if !filepath.IsAbs(path) || boxOwn(filepath.Clean(path)) {
				continue
			}
			canon, chain, ok := resolveChain(filepath.Clean(path))
			if !ok || boxOwn(canon) {
				continue
			}
			for _, l := range chain {
				if !slices.Contains(links, l) {
					links = append(links, l)
				}
			}
			if i, ok := seen[canon]; ok {
				binds[i].Write = binds[i].Write || kind.Write
				binds[i].Hide = binds[i].Hide || kind.Hide
				binds[i].Scratch = binds[i].Scratch || kind.Scratch
				binds[i].Seed = binds[i].Seed || kind.Seed
				continue
			}
			seen[canon] = len(binds)
			kind.Path = canon
			binds = append(binds, kind)
		}
	}
	add(p.Full, bind{Write: true})
	add(p.ReadExec, bind{})
	add(p.ReadOnly, bind{})
	add(p.Hide, bind{Hide: true})
	add(p.Scratch, bind{Scratch: true, Write: true})
	add(p.Seed, bind{Seed: true})
	// Parents before children: a path inside a granted directory is
	// bound over it.
	slices.SortFunc(binds, func(a, b bind) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(links, func(a, b boxLink) int { return strings.Compare(a.Path, b.Path) })
	return binds, links
}

// boxLink is a symbolic link made in the box.
type boxLink struct {
	Path   string `json:"path"`
	Target string `json:"target"`
}

// boxOwn reports whether path is one the box provides itself.
func boxOwn(path string) bool {
	if strings.HasPrefix(path, "/dev/shm/") {
		return false // a directory in a tmpfs, as a workspace may be: the box's own /dev/shm holds it
	}
	return within(path, "/proc") || within(path, "/dev") || path == "/"
}

// resolveChain resolves path's symbolic links one component at a time,
// returning the canonical path and every link met (at its canonical
// place, with its text as written); ok is false when it does not exist
// or links too deeply.
func resolveChain(path string) (canon string, chain []boxLink, ok bool) {
	rest := strings.Split(strings.TrimPrefix(path, "/"), "/")
	cur := "/"
	for hops := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		if name == "" || name == "." {
			continue
		}
		if name == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", nil, false
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return "", nil, false
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", nil, false
		}
		chain = append(chain, boxLink{Path: next, Target: target})
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(strings.TrimPrefix(target, "/"), "/"), rest...)
	}
	return cur, chain, true
}
