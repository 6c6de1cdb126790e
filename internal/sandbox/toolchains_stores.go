package sandbox

import (
	"path/filepath"
	"slices"
	"strings"
)

// What a toolchain grant may never reach: the workspaces (writable, so a
// command could swap what lies there) and the credential stores, of any
// home, as written or resolved.

// linksSafe reports whether every link on the way from p to c, as a box
// resolves it at each command, lies outside the workspaces (where the
// command could swap it) and the credential stores.
func (s *scan) linksSafe(p, c string) bool {
	canon, chain, ok := resolveChain(p)
	if !ok || canon != c {
		return false
	}
	for _, l := range chain {
		if s.inWorkspace(l.Path) || s.inStore(l.Path) {
			return false
		}
	}
	return true
}

// refused reports whether p may never be granted: /, inside a workspace
// or holding one (unless inside a hidden store of p's: a task's worktree
// in sudocode's state under ~/.local), holding the home, or (inside) an
// existing credential store.
func (s *scan) refused(p string, hide []string) bool {
	if p == "/" || (s.home != "" && within(s.home, p)) || s.inWorkspace(p) || s.inStore(p) {
		return true
	}
	for _, w := range s.workspaces {
		if within(w, p) && !slices.ContainsFunc(hide, func(h string) bool { return within(w, h) }) {
			return true
		}
	}
	return false
}

func (s *scan) inWorkspace(p string) bool {
	return slices.ContainsFunc(s.workspaces, func(w string) bool { return within(p, w) })
}

// inStore reports whether p is or is inside an existing credential store.
func (s *scan) inStore(p string) bool {
	// The stores of every ancestor of p, whoever's home it is: p is in
	// one when a store's components run inside p's.
	comps := components(p)
	for _, sc := range storeComponents {
		for i := 0; i+len(sc) <= len(comps); i++ {
			if slices.Equal(comps[i:i+len(sc)], sc) && s.exists("/"+strings.Join(comps[:i+len(sc)], "/")) {
				return true
			}
		}
	}
	for _, st := range hostStores {
		if within(p, st) && s.exists(st) {
			return true
		}
	}
	return false
}

// storesIn are the credential stores strictly inside p: those of p
// itself, of each of its ancestors (whoever's home it is) and hostStores,
// that exist; with named, also those that do not exist yet but that p's
// own name leads to (p is a .cargo: its credentials.toml).
func (s *scan) storesIn(p string, named bool) []string {
	key := storesKey{p, named}
	if out, ok := s.stores[key]; ok {
		return out
	}
	out := s.findStores(p, named)
	s.stores[key] = out
	return out
}

type storesKey struct {
	path  string
	named bool
}

func (s *scan) findStores(p string, named bool) []string {
	var out []string
	comps := components(p)
	for i, sc := range storeComponents {
		// p's own: p/.ssh. Most are absent: look at their first component.
		if s.exists(filepath.Join(p, sc[0])) && s.exists(filepath.Join(p, credentialStores[i])) {
			out = append(out, filepath.Join(p, credentialStores[i]))
		}
		// An ancestor's whose path p's last components begin: .cargo's
		// credentials.toml.
		for j := 1; j < len(sc) && j <= len(comps); j++ {
			if slices.Equal(comps[len(comps)-j:], sc[:j]) {
				if st := filepath.Join(p, strings.Join(sc[j:], "/")); named || s.exists(st) {
					out = append(out, st)
				}
			}
		}
	}
	for _, st := range hostStores {
		if st != p && within(st, p) && s.exists(st) {
			out = append(out, st)
		}
	}
	return out
}

// storeComponents are credentialStores split into path components.
var storeComponents = func() [][]string {
	out := make([][]string, len(credentialStores))
	for i, c := range credentialStores {
		out[i] = strings.Split(c, "/")
	}
	return out
}()

// components are the names along a clean absolute path.
func components(p string) []string {
	if p = strings.Trim(p, "/"); p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
