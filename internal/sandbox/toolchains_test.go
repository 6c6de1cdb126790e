package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree makes directories (names ending in /), files and, for
// "name -> target", links under root.
func tree(t *testing.T, root string, entries ...string) {
	t.Helper()
	for _, e := range entries {
		p := filepath.Join(root, e)
		var err error
		switch name, target, isLink := strings.Cut(e, " -> "); {
		case isLink:
			p = filepath.Join(root, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			err = os.Symlink(target, p)
		case strings.HasSuffix(e, "/"):
			err = os.MkdirAll(p, 0o755)
		default:
			os.MkdirAll(filepath.Dir(p), 0o755)
			err = os.WriteFile(p, []byte("x\n"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// tempDir is a canonical new directory.
func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// lookup reads variables from a map.
func lookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

// wantGrants fails unless tc grants exactly these roots (and hides
// nothing), and says nothing of the home or anything in it.
func wantRoots(t *testing.T, tc Toolchains, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := rootsOf(tc); !slices.Equal(got, want) {
		t.Fatalf("roots\n got %v\nwant %v", got, want)
	}
}

func TestPyenvRootUnderAnotherHomeAndByVariable(t *testing.T) {
	home, other, elsewhere := tempDir(t), tempDir(t), tempDir(t)
	tree(t, other, ".pyenv/shims/", ".pyenv/libexec/pyenv", ".pyenv/plugins/pyenv-virtualenv/shims/", ".pyenv/versions/3.12/bin/")
	tree(t, elsewhere, "pyenv/shims/", "pyenv/libexec/pyenv")
	tc := ToolchainsOf(Host{Path: other + "/.pyenv/plugins/pyenv-virtualenv/shims:" + other + "/.pyenv/shims", Home: home})
	wantRoots(t, tc, other+"/.pyenv")
	if tc.Env["PYENV_ROOT"] != other+"/.pyenv" {
		t.Errorf("env %v", tc.Env)
	}
	tc = ToolchainsOf(Host{Path: elsewhere + "/pyenv/shims", Home: home, Getenv: lookup(map[string]string{"PYENV_ROOT": elsewhere + "/pyenv"})})
	wantRoots(t, tc, elsewhere+"/pyenv")
	if tc.Env["PYENV_ROOT"] != elsewhere+"/pyenv" {
		t.Errorf("env %v", tc.Env)
	}
}

func TestNodeAndBunManagerRoots(t *testing.T) {
	for _, c := range []struct{ dir, bin, env string }{
		{".nvm", "versions/node/v20.1.0/bin", "NVM_DIR"},
		{".volta", "bin", "VOLTA_HOME"},
		{".asdf", "shims", "ASDF_DATA_DIR"},
		{".bun", "bin", "BUN_INSTALL"},
	} {
		home, other := tempDir(t), tempDir(t)
		tree(t, other, c.dir+"/"+c.bin+"/", c.dir+"/lib/x", "named-by-variable/"+c.bin+"/")
		tc := ToolchainsOf(Host{Path: filepath.Join(other, c.dir, c.bin), Home: home})
		wantRoots(t, tc, filepath.Join(other, c.dir))
		if tc.Env[c.env] != filepath.Join(other, c.dir) || len(tc.Env) != 1 {
			t.Errorf("%s: env %v", c.dir, tc.Env)
		}
		byVar := filepath.Join(other, "named-by-variable")
		tc = ToolchainsOf(Host{Path: filepath.Join(byVar, c.bin), Home: home, Getenv: lookup(map[string]string{c.env: byVar})})
		wantRoots(t, tc, byVar)
		if tc.Env[c.env] != byVar {
			t.Errorf("%s by variable: env %v", c.dir, tc.Env)
		}
	}
}

// TestCargoHomeWithRustupAndItsCredentialsHidden: ~/.cargo/bin grants the
// cargo home and the rustup home beside it; cargo's credentials, present
// or not yet, are carved out.
func TestCargoHomeWithRustupAndItsCredentialsHidden(t *testing.T) {
	home, other := tempDir(t), tempDir(t)
	tree(t, other, ".cargo/bin/cargo", ".cargo/registry/index/", ".cargo/credentials.toml", ".cargo/env", ".rustup/toolchains/stable/bin/cargo")
	tc := ToolchainsOf(Host{Path: other + "/.cargo/bin", Home: home})
	wantRoots(t, tc, other+"/.cargo", other+"/.rustup")
	cargo := tc.Grants[0]
	if want := []string{other + "/.cargo/credentials", other + "/.cargo/credentials.toml"}; !slices.Equal(cargo.Hide, want) {
		t.Errorf("hide %v, want %v", cargo.Hide, want)
	}
	if want := []string{other + "/.cargo/bin", other + "/.cargo/env", other + "/.cargo/registry"}; !slices.Equal(cargo.LandlockPaths(), want) {
		t.Errorf("landlock %v, want %v", cargo.LandlockPaths(), want)
	}
	// CARGO_HOME stays the private home's: cargo writes its caches there.
	if tc.Env["RUSTUP_HOME"] != other+"/.rustup" || len(tc.Env) != 1 {
		t.Errorf("env %v", tc.Env)
	}

	// A cargo home named by CARGO_HOME hides the same stores.
	tree(t, other, "cargo-home/bin/", "cargo-home/credentials.toml", "rustup-home/toolchains/")
	tc = ToolchainsOf(Host{Path: other + "/cargo-home/bin", Home: home,
		Getenv: lookup(map[string]string{"CARGO_HOME": other + "/cargo-home", "RUSTUP_HOME": other + "/rustup-home"})})
	wantRoots(t, tc, other+"/cargo-home", other+"/rustup-home")
	if want := []string{other + "/cargo-home/credentials", other + "/cargo-home/credentials.toml"}; !slices.Equal(tc.Grants[0].Hide, want) {
		t.Errorf("CARGO_HOME: hide %v, want %v", tc.Grants[0].Hide, want)
	}
}

// TestCondaPrefixIsTheTopmostBelowTheHome: an environment's bin grants the
// whole installation, but never climbs to the home itself.
func TestCondaPrefixIsTheTopmostBelowTheHome(t *testing.T) {
	home, other := tempDir(t), tempDir(t)
	tree(t, other, "miniconda3/conda-meta/", "miniconda3/pkgs/python-3.12/", "miniconda3/envs/ml/conda-meta/", "miniconda3/envs/ml/bin/")
	tc := ToolchainsOf(Host{Path: other + "/miniconda3/envs/ml/bin", Home: home})
	wantRoots(t, tc, other+"/miniconda3")

	tree(t, home, "conda-meta/", "envs/x/conda-meta/", "envs/x/bin/")
	tc = ToolchainsOf(Host{Path: home + "/envs/x/bin", Home: home})
	wantRoots(t, tc, home+"/envs/x")
}

// TestVenvWithItsInterpretersRoot: a venv grants itself and the
// toolchain root of the interpreter its pyvenv.cfg names.
func TestVenvWithItsInterpretersRoot(t *testing.T) {
	home, other := tempDir(t), tempDir(t)
	tree(t, other, ".pyenv/versions/3.12.1/bin/python3.12", ".pyenv/versions/3.12.1/lib/python3.12/os.py",
		"code/proj/.venv/bin/python -> "+other+"/.pyenv/versions/3.12.1/bin/python3.12", "code/other/.env")
	os.WriteFile(other+"/code/proj/.venv/pyvenv.cfg", []byte("home = "+other+"/.pyenv/versions/3.12.1/bin\ninclude-system-site-packages = false\n"), 0o644)
	tc := ToolchainsOf(Host{Path: other + "/code/proj/.venv/bin", Home: home})
	wantRoots(t, tc, other+"/.pyenv", other+"/code/proj/.venv")
	if tc.Env["PYENV_ROOT"] != other+"/.pyenv" {
		t.Errorf("env %v", tc.Env)
	}
}

// TestDotLocalWithItsStoresCarvedOut: ~/.local/bin grants ~/.local (pipx
// and uv link their tools into share/), but not its keyrings, nor
// sudocode's own state.
func TestDotLocalWithItsStoresCarvedOut(t *testing.T) {
	home := tempDir(t)
	tree(t, home, ".local/bin/black -> ../share/pipx/venvs/black/bin/black", ".local/share/pipx/venvs/black/bin/black",
		".local/share/keyrings/login.keyring", ".local/share/applications/", ".local/lib/python3.12/site-packages/",
		".local/state/sudocode/token", ".local/state/less/history", ".local/share/leak -> keyrings")
	tc := ToolchainsOf(Host{Path: home + "/.local/bin", Home: home})
	wantRoots(t, tc, home+"/.local")
	g := tc.Grants[0]
	for _, h := range []string{".local/share/keyrings", ".local/share/opencode", ".local/state/sudocode"} {
		if !slices.Contains(g.Hide, filepath.Join(home, h)) {
			t.Errorf("%s is not hidden: %v", h, g.Hide)
		}
	}
	want := []string{".local/bin", ".local/lib", ".local/share/applications", ".local/share/pipx", ".local/state/less"}
	for i := range want {
		want[i] = filepath.Join(home, want[i])
	}
	if got := g.LandlockPaths(); !slices.Equal(got, want) {
		t.Errorf("landlock\n got %v\nwant %v", got, want)
	}
}

// TestOptAndNixRoots: /opt/<name> and the Nix store are roots by place;
// a Nix profile directory is granted as itself, and nothing holding the
// daemon's socket is granted.
func TestOptAndNixRoots(t *testing.T) {
	s := scan{home: "/home/u", seen: map[string]bool{}, stores: map[storesKey][]string{}}
	for p, want := range map[string]string{
		"/opt/texlive/2024/bin/x86_64-linux":  "/opt/texlive",
		"/nix/store/abc-hello-2.12/bin":       nixStore,
		"/nix/var/nix/profiles/default/bin":   "/nix/var/nix/profiles/default/bin",
		"/run/current-system/sw/bin":          "/run/current-system/sw/bin",
		"/home/u/.nix-profile/bin":            "/home/u/.nix-profile/bin",
		"/home/u/.local/share/uv/python/bin/": "/home/u/.local",
	} {
		if got, _ := s.rootOf(filepath.Clean(p)); got != want {
			t.Errorf("%s: root %s, want %s", p, got, want)
		}
	}
	// As if Nix were installed here.
	s.seen["/nix/var/nix/daemon-socket"] = true
	for _, p := range []string{"/nix", "/nix/var", "/nix/var/nix", "/nix/var/nix/daemon-socket"} {
		if len(s.storesIn(p, false)) == 0 && !s.refused(p, nil) {
			t.Errorf("%s would expose the Nix daemon's socket", p)
		}
	}
	if s.refused("/nix/store", nil) || len(s.storesIn("/nix/store", false)) > 0 {
		t.Errorf("the Nix store is refused")
	}
}

// TestNixProfileIsGrantedWithItsResolution: a profile on PATH is a chain of
// links into the store; the resolution is granted and the link kept for a
// box that builds its own root.
func TestNixProfileIsGrantedWithItsResolution(t *testing.T) {
	home, store := tempDir(t), tempDir(t)
	tree(t, store, "abc-user-environment/bin/hello", "profiles/profile-1-link -> "+store+"/abc-user-environment",
		"profiles/profile -> profile-1-link")
	tree(t, home, ".nix-profile -> "+store+"/profiles/profile")
	tc := ToolchainsOf(Host{Path: home + "/.nix-profile/bin", Home: home})
	wantRoots(t, tc, store+"/abc-user-environment/bin")
	if want := []Link{{home + "/.nix-profile/bin", store + "/abc-user-environment/bin"}}; !slices.Equal(tc.Links, want) {
		t.Errorf("links %v, want %v", tc.Links, want)
	}
}

// TestOtherPathDirsAreGrantedAsThemselves: no parent of a directory that
// matches no layout is granted; a link entry grants its resolution.
func TestOtherPathDirsAreGrantedAsThemselves(t *testing.T) {
	home, other := tempDir(t), tempDir(t)
	tree(t, home, "go/bin/", "go/pkg/mod/", "real/node/bin/", "nodebin -> real/node/bin")
	tree(t, other, "tools/bin/")
	tc := ToolchainsOf(Host{Path: strings.Join([]string{home + "/go/bin", home + "/nodebin", other + "/tools/bin", ".", "", home + "/missing"}, ":"), Home: home})
	wantRoots(t, tc, home+"/go/bin", home+"/real/node/bin", other+"/tools/bin")
	if want := []Link{{home + "/nodebin", home + "/real/node/bin"}}; !slices.Equal(tc.Links, want) {
		t.Errorf("links %v", tc.Links)
	}
}

// TestWorkspacePathDirsAreNotGranted: a PATH directory inside a workspace
// (an activated .venv/bin), a link to one, and a workspace's parent grant
// nothing: the workspace is granted anyway, and what a command can swap
// for a link is never a rule of the next command's sandbox.
func TestWorkspacePathDirsAreNotGranted(t *testing.T) {
	home, ws, other := tempDir(t), tempDir(t), tempDir(t)
	tree(t, ws, "proj/.venv/bin/", "proj/node_modules/.bin/")
	os.WriteFile(ws+"/proj/.venv/pyvenv.cfg", []byte("home = /usr/bin\n"), 0o644)
	tree(t, other, "venv-link -> "+ws+"/proj/.venv/bin")
	path := strings.Join([]string{ws + "/proj/.venv/bin", ws + "/proj/node_modules/.bin", other + "/venv-link", ws, filepath.Dir(ws)}, ":")
	tc := ToolchainsOf(Host{Path: path, Home: home, Workspaces: []string{ws + "/proj"}})
	if len(tc.Grants) != 0 || len(tc.Links) != 0 {
		t.Fatalf("granted %+v", tc)
	}
}

// TestGrantIsCanonicalAndNotFollowedAgain: a link on PATH grants what it
// named when the grant was made; swapping the link afterwards (for one to
// ~/.ssh) changes no granted root. (The link itself is kept for a box to
// make again only where no command can swap it:
// TestLinksKeptOnlyWhereNoCommandCanSwapThem.)
func TestGrantIsCanonicalAndNotFollowedAgain(t *testing.T) {
	home, other := tempDir(t), tempDir(t)
	tree(t, home, ".ssh/id_rsa")
	tree(t, other, "real/bin/", "bin -> real/bin")
	tc := ToolchainsOf(Host{Path: other + "/bin", Home: home})
	before := rootsOf(tc)
	os.Remove(other + "/bin")
	tree(t, other, "bin -> "+home+"/.ssh")
	if after := rootsOf(tc); !slices.Equal(before, after) || !slices.Equal(after, []string{other + "/real/bin"}) {
		t.Fatalf("before %v, after the swap %v", before, after)
	}
}

// TestVenvGrantsNotItsProjectsParent: ~/code/proj/.venv/bin grants that
// venv, never ~/code where the other projects are.
func TestVenvGrantsNotItsProjectsParent(t *testing.T) {
	home := tempDir(t)
	tree(t, home, "code/proj/.venv/bin/tool", "code/other/.env")
	os.WriteFile(home+"/code/proj/.venv/pyvenv.cfg", []byte("home = /usr/bin\n"), 0o644)
	tc := ToolchainsOf(Host{Path: home + "/code/proj/.venv/bin", Home: home})
	wantRoots(t, tc, home+"/code/proj/.venv", "/usr/bin")
}

// TestLinksIntoCredentialStoresAreNotGranted: an entry whose path as
// written, or whose resolution, is, is inside or holds a credential store
// is left out, wherever the link is.
func TestLinksIntoCredentialStoresAreNotGranted(t *testing.T) {
	home, other := tempDir(t), tempDir(t)
	tree(t, home, ".ssh/id_rsa", ".ssh/bin/", ".config/gh/hosts.yml", ".config/tool/bin/", "tools -> .ssh",
		".ssh/out -> "+other+"/real/bin")
	tree(t, other, "real/bin/", "keys -> "+home+"/.ssh", "keybin -> "+home+"/.ssh/bin", "cfg -> "+home+"/.config",
		"peer/.aws/credentials", "peer/bin/", ".pyenv -> "+home+"/.ssh")
	path := strings.Join([]string{
		home + "/tools", other + "/keys", other + "/keybin", home + "/.ssh/bin", home + "/.ssh/out",
		other + "/cfg", home + "/.config", other + "/peer", other + "/peer/.aws", other + "/.pyenv/shims",
		home, filepath.Dir(home), "/",
	}, ":")
	tc := ToolchainsOf(Host{Path: path, Home: home})
	if len(tc.Grants) != 0 {
		t.Fatalf("granted %v", rootsOf(tc))
	}
	// The same directories reached by their own paths are granted.
	tc = ToolchainsOf(Host{Path: other + "/real/bin:" + home + "/.config/tool/bin:" + other + "/peer/bin", Home: home})
	wantRoots(t, tc, other+"/real/bin", home+"/.config/tool/bin", other+"/peer/bin")
}

// TestRootHoldingAWorkspaceFallsBackToTheEntry: a conda installation that
// holds the workspace is not granted; its bin on PATH is, as itself.
func TestRootHoldingAWorkspaceFallsBackToTheEntry(t *testing.T) {
	home, other := tempDir(t), tempDir(t)
	tree(t, other, "conda/conda-meta/", "conda/bin/", "conda/proj/")
	tc := ToolchainsOf(Host{Path: other + "/conda/bin", Home: home, Workspaces: []string{other + "/conda/proj"}})
	wantRoots(t, tc, other+"/conda/bin")
}

// TestLandlockPathsAroundHiddenStores: the allow-list holds everything of
// the root but the stores and the links beside them.
func TestLandlockPathsAroundHiddenStores(t *testing.T) {
	root := tempDir(t)
	tree(t, root, "a/b/secret/key", "a/b/c", "a/d/", "e", "a/b/link -> secret")
	g := Grant{Root: root, Hide: []string{root + "/a/b/secret", root + "/missing/x"}}
	want := []string{root + "/a/b/c", root + "/a/d", root + "/e"}
	if got := g.LandlockPaths(); !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if got := (Grant{Root: root}).LandlockPaths(); !slices.Equal(got, []string{root}) {
		t.Fatalf("nothing hidden: %v", got)
	}
}

// TestLinksKeptOnlyWhereNoCommandCanSwapThem: a box makes a PATH entry's
// links again at each command, so an entry is kept as a link only when
// none of its links lies in a workspace (or a store); its canonical grant
// stays either way.
func TestLinksKeptOnlyWhereNoCommandCanSwapThem(t *testing.T) {
	home, ws, other := tempDir(t), tempDir(t), tempDir(t)
	tree(t, other, "real/bin/", "direct -> real", "via-ws -> "+ws+"/hop")
	tree(t, ws, "hop -> "+other+"/real")
	tree(t, home, ".ssh/hop -> "+other+"/real", "via-ssh -> .ssh/hop")
	path := strings.Join([]string{other + "/direct/bin", other + "/via-ws/bin", home + "/via-ssh/bin"}, ":")
	tc := ToolchainsOf(Host{Path: path, Home: home, Workspaces: []string{ws}})
	wantRoots(t, tc, other+"/real/bin")
	if want := []Link{{other + "/direct/bin", other + "/real/bin"}}; !slices.Equal(tc.Links, want) {
		t.Errorf("links %v, want %v", tc.Links, want)
	}
	if want := []string{other + "/real/bin", other + "/direct/bin"}; !slices.Equal(tc.LandlockPaths(), want) {
		t.Errorf("policy paths %v, want %v", tc.LandlockPaths(), want)
	}
}

// TestRootHoldingAWorkspaceInsideAHiddenStore: a task's worktree lives in
// sudocode's state under ~/.local; ~/.local/bin is still granted as
// ~/.local, since the state (worktree and all) is carved out of it.
func TestRootHoldingAWorkspaceInsideAHiddenStore(t *testing.T) {
	home := tempDir(t)
	tree(t, home, ".local/bin/black -> ../share/pipx/venvs/black/bin/black", ".local/share/pipx/venvs/black/bin/black",
		".local/state/sudocode/worktrees/repo-1/task-1/", ".local/state/sudocode/worktrees/repo-1/task-2/secret")
	worktree := home + "/.local/state/sudocode/worktrees/repo-1/task-1"
	tc := ToolchainsOf(Host{Path: home + "/.local/bin", Home: home, Workspaces: []string{worktree}})
	wantRoots(t, tc, home+"/.local")
	for _, p := range tc.LandlockPaths() {
		if within(p, home+"/.local/state") {
			t.Errorf("%s is granted", p)
		}
	}
}

// rootsOf are the granted directories of tc.
func rootsOf(tc Toolchains) []string {
	out := make([]string, len(tc.Grants))
	for i, g := range tc.Grants {
		out[i] = g.Root
	}
	return out
}
