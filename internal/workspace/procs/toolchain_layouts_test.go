package procs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layoutCase is a toolchain laid out as its installer lays it out, under
// another home than the user's (or the user's, for ~/.local): PATH
// names one directory of it, and the program there runs files elsewhere
// in the toolchain's root, as the real ones do.
type layoutCase struct {
	name string
	// build lays the toolchain out under other (another home) or home
	// (the user's) and returns the PATH entry, the server's toolchain
	// variables, and the secrets in the toolchain's root or beside it
	// that must stay unreadable.
	build func(t *testing.T, home, other string) (entry string, vars map[string]string, secrets []string)
	cmd   string // what the command runs
	want  string // its output
}

var layoutCases = []layoutCase{{
	name: "pyenv by PYENV_ROOT",
	build: func(t *testing.T, home, other string) (string, map[string]string, []string) {
		root := filepath.Join(other, "pythons")
		// The shim needs PYENV_ROOT from the environment: the command's
		// HOME is a private one, where ~/.pyenv is not.
		writeExe(t, filepath.Join(root, "shims", "python"), `exec "$PYENV_ROOT/libexec/pyenv" exec python "$@"`+"\n")
		writeExe(t, filepath.Join(root, "libexec", "pyenv"), `shift; exec "$PYENV_ROOT/versions/3.99/bin/$@"`+"\n")
		writeExe(t, filepath.Join(root, "versions", "3.99", "bin", "python"), `echo "python 3.99 $*"`+"\n")
		return filepath.Join(root, "shims"), map[string]string{"PYENV_ROOT": root}, nil
	},
	cmd: "python -V", want: "python 3.99 -V\n",
}, {
	name: "nvm",
	build: func(t *testing.T, home, other string) (string, map[string]string, []string) {
		v := filepath.Join(other, ".nvm", "versions", "node", "v20.1.0")
		// npm links a package's command into bin/ from lib/node_modules.
		writeExe(t, filepath.Join(v, "lib", "node_modules", "typescript", "bin", "tsc"), `echo "tsc $* (nvm $NVM_DIR)"`+"\n")
		os.MkdirAll(filepath.Join(v, "bin"), 0o755)
		os.Symlink("../lib/node_modules/typescript/bin/tsc", filepath.Join(v, "bin", "tsc"))
		return filepath.Join(v, "bin"), nil, nil
	},
	cmd: "tsc -v", want: "tsc -v (nvm {other}/.nvm)\n",
}, {
	name: "volta",
	build: func(t *testing.T, home, other string) (string, map[string]string, []string) {
		root := filepath.Join(other, ".volta")
		writeExe(t, filepath.Join(root, "bin", "node"), `exec "$VOLTA_HOME/tools/image/node/20.1.0/bin/node" "$@"`+"\n")
		writeExe(t, filepath.Join(root, "tools", "image", "node", "20.1.0", "bin", "node"), `echo "node 20.1.0 $*"`+"\n")
		return filepath.Join(root, "bin"), nil, nil
	},
	cmd: "node -v", want: "node 20.1.0 -v\n",
}, {
	name: "asdf",
	build: func(t *testing.T, home, other string) (string, map[string]string, []string) {
		root := filepath.Join(other, ".asdf")
		writeExe(t, filepath.Join(root, "shims", "terraform"), `exec "$ASDF_DATA_DIR/installs/terraform/1.9.0/bin/terraform" "$@"`+"\n")
		writeExe(t, filepath.Join(root, "installs", "terraform", "1.9.0", "bin", "terraform"), `echo "terraform 1.9.0 $*"`+"\n")
		return filepath.Join(root, "shims"), nil, nil
	},
	cmd: "terraform version", want: "terraform 1.9.0 version\n",
}, {
	name: "bun",
	build: func(t *testing.T, home, other string) (string, map[string]string, []string) {
		root := filepath.Join(other, ".bun")
		writeExe(t, filepath.Join(root, "install", "global", "node_modules", "cowsay", "cli.sh"), `echo "moo $* ($BUN_INSTALL)"`+"\n")
		os.MkdirAll(filepath.Join(root, "bin"), 0o755)
		os.Symlink("../install/global/node_modules/cowsay/cli.sh", filepath.Join(root, "bin", "cowsay"))
		return filepath.Join(root, "bin"), nil, nil
	},
	cmd: "cowsay hi", want: "moo hi ({other}/.bun)\n",
}, {
	name: "cargo and rustup",
	build: func(t *testing.T, home, other string) (string, map[string]string, []string) {
		// rustup's proxies in ~/.cargo/bin run the toolchain in ~/.rustup.
		writeExe(t, filepath.Join(other, ".cargo", "bin", "cargo"), `exec "$RUSTUP_HOME/toolchains/stable/bin/cargo" "$@"`+"\n")
		writeExe(t, filepath.Join(other, ".rustup", "toolchains", "stable", "bin", "cargo"), `echo "cargo 1.80 $*"`+"\n")
		secret := filepath.Join(other, ".cargo", "credentials.toml")
		os.WriteFile(secret, []byte("SECRET-cargo-token\n"), 0o600)
		return filepath.Join(other, ".cargo", "bin"), nil, []string{secret}
	},
	cmd: "cargo -V", want: "cargo 1.80 -V\n",
}, {
	name: "conda",
	build: func(t *testing.T, home, other string) (string, map[string]string, []string) {
		base := filepath.Join(other, "miniconda3")
		os.MkdirAll(filepath.Join(base, "conda-meta"), 0o755)
		os.MkdirAll(filepath.Join(base, "envs", "ml", "conda-meta"), 0o755)
		os.MkdirAll(filepath.Join(base, "pkgs", "python-3.12.4"), 0o755)
		os.WriteFile(filepath.Join(base, "pkgs", "python-3.12.4", "info"), []byte("3.12.4\n"), 0o644)
		writeExe(t, filepath.Join(base, "envs", "ml", "bin", "python"), `echo "python $(cat `+base+`/pkgs/python-3.12.4/info)"`+"\n")
		return filepath.Join(base, "envs", "ml", "bin"), nil, nil
	},
	cmd: "python", want: "python 3.12.4\n",
}, {
	name: "venv made from a pyenv Python",
	build: func(t *testing.T, home, other string) (string, map[string]string, []string) {
		py := filepath.Join(other, ".pyenv", "versions", "3.12.1")
		writeExe(t, filepath.Join(py, "bin", "python3.12"), `cat "`+py+`/lib/python3.12/os.py"`+"\n")
		os.MkdirAll(filepath.Join(py, "lib", "python3.12"), 0o755)
		os.WriteFile(filepath.Join(py, "lib", "python3.12", "os.py"), []byte("stdlib read\n"), 0o644)
		venv := filepath.Join(other, "code", "proj", ".venv")
		os.MkdirAll(filepath.Join(venv, "bin"), 0o755)
		os.Symlink(filepath.Join(py, "bin", "python3.12"), filepath.Join(venv, "bin", "python"))
		os.WriteFile(filepath.Join(venv, "pyvenv.cfg"), []byte("home = "+filepath.Join(py, "bin")+"\nversion = 3.12.1\n"), 0o644)
		secret := filepath.Join(other, "code", "other", ".env")
		os.MkdirAll(filepath.Dir(secret), 0o755)
		os.WriteFile(secret, []byte("SECRET-sibling\n"), 0o600)
		return filepath.Join(venv, "bin"), nil, []string{secret}
	},
	cmd: "python", want: "stdlib read\n",
}, {
	name: "~/.local with pipx",
	build: func(t *testing.T, home, other string) (string, map[string]string, []string) {
		local := filepath.Join(home, ".local")
		writeExe(t, filepath.Join(local, "share", "pipx", "venvs", "black", "bin", "black"), `echo "black $*"`+"\n")
		os.MkdirAll(filepath.Join(local, "bin"), 0o755)
		os.Symlink("../share/pipx/venvs/black/bin/black", filepath.Join(local, "bin", "black"))
		var secrets []string
		for _, s := range []string{"share/keyrings/login.keyring", "state/sudocode/token"} {
			p := filepath.Join(local, s)
			os.MkdirAll(filepath.Dir(p), 0o700)
			os.WriteFile(p, []byte("SECRET-"+filepath.Base(s)+"\n"), 0o600)
			secrets = append(secrets, p)
		}
		return filepath.Join(local, "bin"), nil, secrets
	},
	cmd: "black --check .", want: "black --check .\n",
}, {
	name: "Nix-style profile of links",
	build: func(t *testing.T, home, other string) (string, map[string]string, []string) {
		env := filepath.Join(other, "store", "abc-user-environment")
		writeExe(t, filepath.Join(env, "bin", "hello"), `echo "hello from the profile"`+"\n")
		os.MkdirAll(filepath.Join(other, "profiles"), 0o755)
		os.Symlink(env, filepath.Join(other, "profiles", "profile-1-link"))
		os.Symlink("profile-1-link", filepath.Join(other, "profiles", "profile"))
		os.Symlink(filepath.Join(other, "profiles", "profile"), filepath.Join(home, ".nix-profile"))
		return filepath.Join(home, ".nix-profile", "bin"), nil, nil
	},
	cmd: "hello", want: "hello from the profile\n",
}}

// TestToolchainLayoutsRunThroughExecCommand: each toolchain layout, under
// another home than $HOME, runs through exec_command with exit 0, and
// its credentials (and each home's ~/.ssh) stay unreadable.
func TestToolchainLayoutsRunThroughExecCommand(t *testing.T) {
	t.Parallel()
	requireLandlock(t, 1)
	for _, c := range layoutCases {
		t.Run(c.name, func(t *testing.T) {
			eachWall(t, func(t *testing.T, noBox bool) {
				home, other := fakeHome(t), fakeHome(t)
				entry, vars, secrets := c.build(t, home, other)
				secrets = append(secrets, filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(other, ".ssh", "id_rsa"))
				m := newManager(t, Options{})
				m.noBox = noBox
				grantServerPath(m, entry+":/usr/bin:/bin", home, vars)

				s := start(t, m, req(c.cmd))
				if want := strings.ReplaceAll(c.want, "{other}", other); s.ExitCode != 0 || s.Stdout.Text != want {
					t.Fatalf("want exit 0 and %q: %+v", want, s)
				}
				var cmd strings.Builder
				for _, p := range secrets {
					cmd.WriteString("cat " + p + " 2>/dev/null || echo denied\n")
				}
				s = start(t, m, req(cmd.String()))
				if want := strings.Repeat("denied\n", len(secrets)); s.Stdout.Text != want {
					t.Fatalf("a secret was readable: %+v", s)
				}
			})
		})
	}
}
