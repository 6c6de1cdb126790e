package procs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// grantServerPath gives m the toolchains, and the environment, of a
// server with this PATH, user home and toolchain variables.
func grantServerPath(m *Manager, path, home string, vars map[string]string) {
	server := map[string]string{"PATH": path, "LANG": "C.UTF-8"}
	for k, v := range vars {
		server[k] = v
	}
	m.getenv = func(k string) (string, bool) { v, ok := server[k]; return v, ok }
	m.grantToolchains(path, home, m.getenv)
}

// eachWall runs f in the sealed box, and under Landlock alone (the
// fallback where the kernel refuses the box).
func eachWall(t *testing.T, f func(t *testing.T, noBox bool)) {
	for _, noBox := range []bool{false, true} {
		name := "box"
		if noBox {
			name = "landlock"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, noBox)
		})
	}
}

// fakeHome is a user home with a private key in ~/.ssh.
func fakeHome(t *testing.T) string {
	t.Helper()
	home, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("SECRET-KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestPathDirInsideTheWorkspaceCannotBeSwapped: an activated .venv/bin of
// the workspace is on the server's PATH; the command replaces it with a
// link to ~/.ssh, and the next command must still not read the key.
func TestPathDirInsideTheWorkspaceCannotBeSwapped(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	eachWall(t, func(t *testing.T, noBox bool) {
		home := fakeHome(t)
		m := newManager(t, Options{})
		m.noBox = noBox
		venv := filepath.Join(m.opts.Root, ".venv")
		writeExe(t, filepath.Join(venv, "bin", "tool"), "echo tool ran\n")
		os.WriteFile(filepath.Join(venv, "pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644)
		grantServerPath(m, filepath.Join(venv, "bin")+":/usr/bin:/bin", home, nil)

		if s := start(t, m, req("tool && rm -rf .venv/bin && ln -s "+home+"/.ssh .venv/bin && echo swapped")); s.Stdout.Text != "tool ran\nswapped\n" {
			t.Fatalf("%+v", s)
		}
		s := start(t, m, req("cat .venv/bin/id_rsa 2>/dev/null || echo denied"))
		if s.Stdout.Text != "denied\n" {
			t.Fatalf("the swapped link reached ~/.ssh: %+v", s)
		}
	})
}

// TestVenvOnPathGrantsNotItsProjectsParent: ~/code/proj/.venv/bin on
// PATH grants that venv, not ~/code, where a sibling project keeps its
// secrets.
func TestVenvOnPathGrantsNotItsProjectsParent(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	eachWall(t, func(t *testing.T, noBox bool) {
		home := fakeHome(t)
		venv := filepath.Join(home, "code", "proj", ".venv")
		writeExe(t, filepath.Join(venv, "bin", "tool"), "echo tool ran\n")
		os.WriteFile(filepath.Join(venv, "pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644)
		os.MkdirAll(filepath.Join(home, "code", "other"), 0o755)
		os.WriteFile(filepath.Join(home, "code", "other", ".env"), []byte("SECRET-ENV\n"), 0o600)
		m := newManager(t, Options{})
		m.noBox = noBox
		grantServerPath(m, filepath.Join(venv, "bin")+":/usr/bin:/bin", home, nil)

		s := start(t, m, req("tool; cat "+home+"/code/other/.env 2>/dev/null || echo denied"))
		if s.Stdout.Text != "tool ran\ndenied\n" {
			t.Fatalf("%+v", s)
		}
	})
}

// TestPathLinkIntoSSHIsNotGranted: PATH entries that are links to ~/.ssh,
// one under the home and one outside it, grant nothing.
func TestPathLinkIntoSSHIsNotGranted(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	eachWall(t, func(t *testing.T, noBox bool) {
		home := fakeHome(t)
		outside, _ := filepath.EvalSymlinks(t.TempDir())
		os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "tools"))
		os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(outside, "keys"))
		m := newManager(t, Options{})
		m.noBox = noBox
		grantServerPath(m, strings.Join([]string{home + "/tools", outside + "/keys", "/usr/bin", "/bin"}, ":"), home, nil)

		var cmd strings.Builder
		for _, p := range []string{home + "/tools/id_rsa", outside + "/keys/id_rsa", home + "/.ssh/id_rsa"} {
			cmd.WriteString("cat " + p + " 2>/dev/null || echo denied\n")
		}
		s := start(t, m, req(cmd.String()))
		if s.Stdout.Text != "denied\ndenied\ndenied\n" {
			t.Fatalf("a link on PATH reached ~/.ssh: %+v", s)
		}
	})
}

// TestPyenvUnderAnotherHomeRuns: the server's PATH has a pyenv that lives
// under another home than $HOME; its shim runs pyenv's libexec, which
// runs the selected version: all of pyenv's root is granted.
func TestPyenvUnderAnotherHomeRuns(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	eachWall(t, func(t *testing.T, noBox bool) {
		home := fakeHome(t)
		other, _ := filepath.EvalSymlinks(t.TempDir())
		root := filepath.Join(other, ".pyenv")
		// As pyenv's own shims: they name the root they were made under.
		writeExe(t, filepath.Join(root, "shims", "python"), `export PYENV_ROOT="`+root+`"`+"\n"+`exec "`+root+`/libexec/pyenv" exec python "$@"`+"\n")
		writeExe(t, filepath.Join(root, "libexec", "pyenv"), `shift; exec "$PYENV_ROOT/versions/3.99/bin/$@"`+"\n")
		writeExe(t, filepath.Join(root, "versions", "3.99", "bin", "python"), `echo "python 3.99 $*"`+"\n")
		m := newManager(t, Options{})
		m.noBox = noBox
		grantServerPath(m, filepath.Join(root, "shims")+":/usr/bin:/bin", home, nil)

		s := start(t, m, req("python --version"))
		if s.ExitCode != 0 || s.Stdout.Text != "python 3.99 --version\n" {
			t.Fatalf("%+v", s)
		}
	})
}

// TestPathLinkThroughTheWorkspaceCannotBeSwapped: a PATH entry outside
// the workspace reaches its toolchain through a link inside it; the
// command points that link at ~/.ssh, and the next command must still
// not read the key through the entry.
func TestPathLinkThroughTheWorkspaceCannotBeSwapped(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	eachWall(t, func(t *testing.T, noBox bool) {
		home := fakeHome(t)
		outside, _ := filepath.EvalSymlinks(t.TempDir())
		m := newManager(t, Options{})
		m.noBox = noBox
		writeExe(t, filepath.Join(outside, "real", "bin", "tool"), "echo tool ran\n")
		os.Symlink(filepath.Join(outside, "real"), filepath.Join(m.opts.Root, "hop"))
		os.Symlink(filepath.Join(m.opts.Root, "hop"), filepath.Join(outside, "tools"))
		grantServerPath(m, filepath.Join(outside, "tools", "bin")+":/usr/bin:/bin", home, nil)

		// The entry names tools/bin: hop now leads to evil/, whose bin is ~/.ssh.
		swap := outside + "/real/bin/tool && mkdir evil && ln -s " + home + "/.ssh evil/bin && rm hop && ln -s evil hop && echo swapped"
		if s := start(t, m, req(swap)); s.Stdout.Text != "tool ran\nswapped\n" {
			t.Fatalf("%+v", s)
		}
		s := start(t, m, req("cat "+outside+"/tools/bin/id_rsa 2>/dev/null || echo denied"))
		if s.Stdout.Text != "denied\n" {
			t.Fatalf("the swapped link reached ~/.ssh: %+v", s)
		}
	})
}
