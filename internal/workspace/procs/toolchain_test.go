package procs

import (
	"github.com/sudocode/sudocode/internal/testkit"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeExe writes an executable script.
func writeExe(t *testing.T, path, body string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestToolchainsUnderHomeRunAndCredentialsStayUnreadable: a server whose
// PATH has pyenv-style shims and ~/.local/bin under a home full of
// credential stores: the toolchains run, the stores stay unreadable.
func TestToolchainsUnderHomeRunAndCredentialsStayUnreadable(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	home, _ := filepath.EvalSymlinks(t.TempDir())
	pyenv := filepath.Join(home, ".pyenv")
	// As pyenv's: the shim hands over to libexec/pyenv, which runs the
	// selected version.
	writeExe(t, filepath.Join(pyenv, "shims", "python"), `exec "`+pyenv+`/libexec/pyenv" exec python "$@"`+"\n")
	writeExe(t, filepath.Join(pyenv, "libexec", "pyenv"), `shift; exec "$PYENV_ROOT/versions/3.99/bin/$@"`+"\n")
	writeExe(t, filepath.Join(pyenv, "versions", "3.99", "bin", "python"), `echo "python 3.99 $*"`+"\n")
	writeExe(t, filepath.Join(home, ".local", "bin", "tool"), "echo tool ran\n")
	// A toolchain reached through a symlinked PATH entry.
	writeExe(t, filepath.Join(home, ".volta", "tools", "node-x", "bin", "nodish"), "echo nodish ran\n")
	os.Symlink(filepath.Join(home, ".volta", "tools", "node-x", "bin"), filepath.Join(home, "bin-link"))
	stores := []string{".ssh/id_rsa", ".aws/credentials", ".gnupg/private-keys-v1.d/k", ".config/gh/hosts.yml", ".netrc",
		".git-credentials", ".docker/config.json", ".kube/config", ".local/share/keyrings/login.keyring",
		".config/gcloud/credentials.db", ".azure/accessTokens.json", ".mozilla/firefox/cookies.sqlite",
		".config/google-chrome/Default/Cookies", ".password-store/x.gpg", ".pyenv/../.npmrc"}
	for _, s := range stores {
		p := filepath.Join(home, s)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("SECRET-"+filepath.Base(s)+"\n"), 0o600)
	}
	path := strings.Join([]string{filepath.Join(pyenv, "shims"), filepath.Join(home, ".local", "bin"), filepath.Join(home, "bin-link"), "/usr/bin", "/bin"}, ":")

	m := newManager(t, Options{})
	grantServerPath(m, path, home, nil)

	var cmd strings.Builder
	cmd.WriteString("python --version; tool; nodish\n")
	for _, s := range stores {
		cmd.WriteString("cat " + filepath.Join(home, s) + " 2>/dev/null || echo denied " + s + "\n")
	}
	cmd.WriteString("for e in $(ls -A " + home + " 2>/dev/null); do echo \"home has $e\"; done\n")
	s := start(t, m, req(cmd.String()))
	out := s.Stdout.Text
	for _, want := range []string{"python 3.99 --version\n", "tool ran\n", "nodish ran\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in %q (stderr %q)", want, out, s.Stderr.Text)
		}
	}
	// The home cannot be listed (Landlock alone), or holds only what was
	// granted (the box).
	for _, l := range strings.Split(out, "\n") {
		if e, ok := strings.CutPrefix(l, "home has "); ok && !slices.Contains([]string{".pyenv", ".local", ".volta", "bin-link"}, e) {
			t.Errorf("the home shows %s", e)
		}
	}
	for _, st := range stores {
		if !strings.Contains(out, "denied "+st+"\n") {
			t.Errorf("%s was readable: %q", st, out)
		}
	}
	if strings.Contains(out, "SECRET") {
		t.Fatalf("a credential reached the command: %q", out)
	}
}

// TestThisMachinesToolchains: the machine's own python3, node and go,
// wherever they are installed (here python3 is a pyenv shim), run in
// the sandbox.
func TestThisMachinesToolchains(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	for _, tc := range []struct{ cmd, program, install, check string }{
		{"python3 -c 'print(6*7)'", "python3", "apt-get install -y python3", "-c pass"},
		{"node -e 'console.log(6*7)'", "node", "apt-get install -y nodejs", "-e 0"},
		{"go env GOROOT >/dev/null && echo 42", "go", "https://go.dev/dl", "version"},
	} {
		testkit.Runnable(t, tc.program, tc.install, strings.Fields(tc.check)...)
		if s := start(t, m, req(tc.cmd)); s.Stdout.Text != "42\n" || s.ExitCode != 0 {
			t.Errorf("%s: %+v", tc.cmd, s)
		}
	}
}

// TestGoBuildLeavesTheRepositoryClean: the go command writes its caches
// to the private home, not into the workspace. go build of a package
// that imports nothing writes the same build cache go test does, at a
// fraction of the cost: go test would compile the standard library's
// testing package and the runtime cold in the new home (38 s of CPU,
// the suite's most expensive test) to show nothing more.
func TestGoBuildLeavesTheRepositoryClean(t *testing.T) {
	t.Parallel()
	m := newManager(t, Options{})
	root := m.opts.Root
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(root, "m.go"), []byte("package m\n\nfunc Add(a, b int) int { return a + b }\n"), 0o644)
	testkit.Git(t, root, "init", "-q")
	testkit.Git(t, root, "add", "-A")
	testkit.Git(t, root, "commit", "-qm", "init")
	s := start(t, m, req("GOFLAGS=-mod=mod GOTOOLCHAIN=local go build ./... && echo built && git status --porcelain --untracked-files=all && echo clean", timeout(300e9), yield(300e9)))
	if s.Stdout.Text != "built\nclean\n" {
		t.Fatalf("%+v", s)
	}
	if _, err := os.Stat(filepath.Join(m.home, ".cache", "go-build")); err != nil {
		t.Fatalf("the build cache is not in the private home: %v", err)
	}
}
