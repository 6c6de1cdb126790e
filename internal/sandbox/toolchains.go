package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Host is what the toolchain grant is computed from: the server's own
// environment.
type Host struct {
	Path string // the server's PATH
	Home string // the user's home: never granted, nor anything holding it
	// Workspaces are the directories the box grants writable anyway (the
	// workspace, a repository's git directories): nothing inside one is
	// granted as a toolchain, since the command could swap it for a link,
	// and nothing holding one, since that holds the projects beside it.
	Workspaces []string
	// Getenv reads the server's toolchain variables (PYENV_ROOT,
	// CARGO_HOME, …); nil reads none.
	Getenv func(string) (string, bool)
}

// Grant is a toolchain root a command may read and execute.
type Grant struct {
	Root string // canonical (absolute, no links)
	// Hide are the credential stores inside Root: the ones that exist,
	// and those Root's own layout names even before they exist (a
	// .cargo's credentials.toml), so a later `cargo login` stays hidden.
	// LandlockPaths grants Root's contents around them, which serves a
	// box too: what it does not bind is not there.
	Hide []string
}

// Link is a PATH entry or toolchain root that reaches its grant through
// symbolic links (~/.nix-profile/bin): a box that builds its own root
// makes those links again, so the names the toolchain recorded still
// work there. Only links none of which lies in a workspace (where a
// command could swap it) or in a credential store are kept.
type Link struct {
	Path   string // as the server's PATH or the toolchain names it
	Target string // its canonical place, inside a Grant
}

// Toolchains is what the sandbox grants of a server's PATH.
type Toolchains struct {
	Grants []Grant           // sorted by root; none inside another
	Links  []Link            // entries and roots that are links
	Env    map[string]string // variables the toolchains need under a private HOME (PYENV_ROOT, RUSTUP_HOME, …)
}

// LandlockPaths are the paths a policy grants read and execute for the
// toolchains, in the box and under Landlock alike: each root, or where it
// holds credential stores, its contents around them (Landlock is an
// allow-list); then the Links' paths, which a box makes again link by
// link, and Landlock follows into the roots.
func (t Toolchains) LandlockPaths() []string {
	var out []string
	for _, g := range t.Grants {
		out = append(out, g.LandlockPaths()...)
	}
	for _, l := range t.Links {
		out = append(out, l.Path)
	}
	return out
}

// LandlockPaths is Root when it hides nothing; else Root's entries that
// lead to no store, and inside those that do, the same again. Links among
// the entries are left out: Landlock would follow them when the rule is
// made, and what they name is granted by its own path or not at all.
// Entries made after this call are not granted.
func (g Grant) LandlockPaths() []string {
	return around(g.Root, g.Hide)
}

func around(dir string, hide []string) []string {
	var inside []string
	for _, h := range hide {
		if within(dir, h) {
			return nil
		}
		if within(h, dir) {
			inside = append(inside, h)
		}
	}
	if len(inside) == 0 {
		return []string{dir}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type()&os.ModeSymlink == 0 {
			out = append(out, around(filepath.Join(dir, e.Name()), inside)...)
		}
	}
	return out
}

// layout is a toolchain whose root is a directory of a known name (its
// default under a home) or the one a variable names.
type layout struct {
	dir, env string
	// export: the toolchain finds itself through env, whose default is
	// under HOME, so the command gets it (its HOME is a private one).
	export bool
}

// layouts are looked for in this order; a PATH directory that matches
// none of these, nor a conda prefix, a Python venv, /opt/<name> or the
// Nix store, is granted as itself only. CARGO_HOME is not exported: cargo
// writes its registry cache there, which the private home holds instead.
var layouts = []layout{
	{".pyenv", "PYENV_ROOT", true},
	{".nvm", "NVM_DIR", true},
	{".volta", "VOLTA_HOME", true},
	{".asdf", "ASDF_DATA_DIR", true},
	{".bun", "BUN_INSTALL", true},
	{".cargo", "CARGO_HOME", false},
	*rustup,
	{".local", "", false},
}

// nixStore holds every Nix package; the daemon's socket elsewhere under
// /nix is never granted (hostStores).
const nixStore = "/nix/store"

// ToolchainsOf grants what each directory on h.Path belongs to, by the
// toolchain's own layout, wherever it is: a pyenv, nvm, volta, asdf or
// bun root; a cargo home with its rustup home; ~/.local; the Nix store;
// /opt/<name>; the topmost conda prefix holding it (below the home); a
// Python venv, with the root of the interpreter it was made from. Any
// other directory is granted as itself, never a parent. Both the entry as
// written and its resolution are matched, and only canonical paths are
// granted, so a link swapped later is not followed. An entry or root is
// left out when, as written or resolved, it is inside a workspace or
// holds one, holds the home, or is or is inside a credential store; an
// entry holding an existing store is left out too, while a toolchain root
// holding one (~/.cargo, ~/.local) is granted with its stores hidden. A
// root refused for what it holds falls back to the entry itself.
func ToolchainsOf(h Host) Toolchains {
	s := scan{home: canonicalOr(h.Home), getenv: h.Getenv, seen: map[string]bool{}, stores: map[storesKey][]string{}, t: Toolchains{Env: map[string]string{}}}
	for _, w := range h.Workspaces {
		s.workspaces = append(s.workspaces, filepath.Clean(w))
		if c := canonical(w); c != "" {
			s.workspaces = append(s.workspaces, c)
		}
	}
	for _, entry := range filepath.SplitList(h.Path) {
		if filepath.IsAbs(entry) { // "." and "": the workspace is granted anyway
			s.entry(filepath.Clean(entry), true)
		}
	}
	s.t.Grants = outermost(s.t.Grants)
	return s.t
}

// scan is one computation of ToolchainsOf.
type scan struct {
	home       string
	workspaces []string
	getenv     func(string) (string, bool)
	seen       map[string]bool // lstat results
	stores     map[storesKey][]string
	t          Toolchains
}

// env is the server's variable k when it names an absolute path.
func (s *scan) env(k string) string {
	if s.getenv == nil || k == "" {
		return ""
	}
	v, _ := s.getenv(k)
	if !filepath.IsAbs(v) {
		return ""
	}
	return filepath.Clean(v)
}

func (s *scan) exists(p string) bool {
	e, ok := s.seen[p]
	if !ok {
		_, err := os.Lstat(p)
		e = err == nil
		s.seen[p] = e
	}
	return e
}

// entry grants what the directory p belongs to; venvs follows a Python
// venv to its interpreter's root (once: not from that root again).
func (s *scan) entry(p string, venvs bool) {
	c := canonical(p)
	if c == "" || !isDir(c) || s.refused(p, nil) || s.refused(c, nil) || len(s.storesIn(p, false)) > 0 || len(s.storesIn(c, false)) > 0 {
		return
	}
	for i, q := range []string{p, c} {
		if i == 1 && c == p {
			break
		}
		root, l := s.rootOf(q)
		if !s.grant(root, l) {
			if root != q {
				s.grant(q, nil)
			}
			continue
		}
		if l != nil && l.dir == ".cargo" {
			s.grant(s.rustupFor(root), rustup)
		}
		if venvs {
			if home := venvHome(root); home != "" {
				s.entry(home, false)
			}
		}
	}
}

// rootOf is the toolchain root p belongs to, and its layout when it is
// one of layouts; p itself when it belongs to none.
func (s *scan) rootOf(p string) (string, *layout) {
	for i := range layouts {
		if v := s.env(layouts[i].env); v != "" && within(p, v) {
			return v, &layouts[i]
		}
	}
	parts := strings.Split(p, string(filepath.Separator))
	for n, part := range parts {
		for i := range layouts {
			if part == layouts[i].dir {
				return strings.Join(parts[:n+1], string(filepath.Separator)), &layouts[i]
			}
		}
	}
	switch {
	case within(p, nixStore):
		return nixStore, nil
	case len(parts) > 2 && parts[1] == "opt":
		return strings.Join(parts[:3], string(filepath.Separator)), nil
	}
	if prefix := s.condaPrefix(p); prefix != "" {
		return prefix, nil
	}
	for _, d := range []string{p, filepath.Dir(p)} {
		if isFile(filepath.Join(d, "pyvenv.cfg")) {
			return d, nil
		}
	}
	return p, nil
}

// condaPrefix is the topmost directory holding conda-meta/ from p up,
// stopping below the home and below /; "" when none.
func (s *scan) condaPrefix(p string) string {
	top := ""
	for d := p; d != "/" && d != "." && d != s.home; d = filepath.Dir(d) {
		if isDir(filepath.Join(d, "conda-meta")) {
			top = d
		}
	}
	return top
}

// rustup is the layout of a rustup home.
var rustup = &layout{".rustup", "RUSTUP_HOME", true}

// rustupFor is the rustup home whose toolchains a cargo home's proxies
// run: $RUSTUP_HOME, else the .rustup beside a .cargo, else the home's.
func (s *scan) rustupFor(cargo string) string {
	if v := s.env(rustup.env); v != "" {
		return v
	}
	if filepath.Base(cargo) == ".cargo" {
		return filepath.Join(filepath.Dir(cargo), ".rustup")
	}
	return filepath.Join(s.home, ".rustup")
}

// grant adds the canonical root (named as written), with the stores it
// holds hidden, unless it is refused; it reports whether it did.
func (s *scan) grant(root string, l *layout) bool {
	c := canonical(root)
	if c == "" || !isDir(c) {
		return false
	}
	hide := slices.Clone(s.storesIn(c, true))
	for _, h := range s.storesIn(root, true) {
		if rel, err := filepath.Rel(root, h); err == nil {
			hide = append(hide, filepath.Join(c, rel))
		}
	}
	if l != nil && l.dir != "" {
		// A root a variable names (CARGO_HOME=/data/cargo) holds what
		// its layout's directory would (.cargo/credentials.toml).
		for _, st := range credentialStores {
			if rel, ok := strings.CutPrefix(st, l.dir+"/"); ok {
				hide = append(hide, filepath.Join(c, rel))
			}
		}
	}
	slices.Sort(hide)
	hide = slices.Compact(hide)
	asWritten := make([]string, len(hide))
	for i, h := range hide {
		asWritten[i] = filepath.Join(root, strings.TrimPrefix(h, c))
	}
	if s.refused(root, asWritten) || s.refused(c, hide) {
		return false
	}
	s.t.Grants = append(s.t.Grants, Grant{Root: c, Hide: hide})
	if root != c && !slices.Contains(s.t.Links, Link{root, c}) && s.linksSafe(root, c) {
		s.t.Links = append(s.t.Links, Link{root, c})
	}
	if l != nil && l.export {
		if _, ok := s.t.Env[l.env]; !ok {
			s.t.Env[l.env] = c
		}
	}
	return true
}

// venvHome is the interpreter directory a Python venv was made from (the
// `home =` line of its pyvenv.cfg); "" when dir is no venv.
func venvHome(dir string) string {
	f, err := os.Open(filepath.Join(dir, "pyvenv.cfg"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == "home" {
			if v = strings.TrimSpace(v); filepath.IsAbs(v) {
				return filepath.Clean(v)
			}
		}
	}
	return ""
}

// outermost sorts the grants by root and drops each one inside another,
// giving its hidden stores to the one that holds it.
func outermost(gs []Grant) []Grant {
	slices.SortStableFunc(gs, func(a, b Grant) int { return strings.Compare(a.Root, b.Root) })
	var out []Grant
	for _, g := range gs {
		// A root sorts before everything inside it.
		if i := slices.IndexFunc(out, func(o Grant) bool { return within(g.Root, o.Root) }); i >= 0 {
			out[i].Hide = append(out[i].Hide, g.Hide...)
			continue
		}
		out = append(out, Grant{Root: g.Root, Hide: slices.Clone(g.Hide)})
	}
	for i := range out {
		slices.Sort(out[i].Hide)
		out[i].Hide = slices.Compact(out[i].Hide)
	}
	return out
}

func isDir(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() }

func isFile(p string) bool { fi, err := os.Stat(p); return err == nil && fi.Mode().IsRegular() }

// canonicalOr is p canonical, or clean when it does not exist.
func canonicalOr(p string) string {
	if p == "" {
		return ""
	}
	if c := canonical(p); c != "" {
		return c
	}
	return filepath.Clean(p)
}
