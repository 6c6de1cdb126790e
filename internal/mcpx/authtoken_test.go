package mcpx_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sudocode/sudocode/internal/mcpx"
)

// TestUserTokenIsMadeOnceAndKept: the first call makes a token in a file
// only the user can read, in a directory only the user can enter; every
// later call, a restart's included, reads the same token back.
func TestUserTokenIsMadeOnceAndKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "sudocode", mcpx.TokenFileName)
	token, made, err := mcpx.UserToken(path)
	if err != nil || !made || len(token) < 26 {
		t.Fatalf("first call: %q made=%v %v", token, made, err)
	}
	st, err := os.Lstat(path)
	if err != nil || st.Mode().Perm() != 0o600 || !st.Mode().IsRegular() {
		t.Fatalf("token file: %v %v", st.Mode(), err)
	}
	if dst, err := os.Stat(filepath.Dir(path)); err != nil || dst.Mode().Perm() != 0o700 {
		t.Fatalf("token directory: %v %v", dst.Mode(), err)
	}
	again, made, err := mcpx.UserToken(path)
	if err != nil || made || again != token {
		t.Fatalf("second call: %q made=%v %v; want %q kept", again, made, err, token)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want the token alone (no temporary file left)", len(entries))
	}
}

// TestUserTokenRaceMakesOne: servers starting at the same moment end with
// one token between them.
func TestUserTokenRaceMakesOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sudocode", mcpx.TokenFileName)
	const n = 8
	tokens := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { tokens[i], _, errs[i] = mcpx.UserToken(path) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || tokens[i] != tokens[0] {
			t.Errorf("server %d: %q %v; want %q", i, tokens[i], errs[i], tokens[0])
		}
	}
}

// TestUserTokenRefusesWhatOthersMayKnow: a token file that is a link, that
// others may read or that holds no token, and a directory others may
// write to, are refused with a message saying what to do; none is
// replaced behind the user's back.
func TestUserTokenRefusesWhatOthersMayKnow(t *testing.T) {
	good := strings.Repeat("k", 26) + "\n"
	for name, setup := range map[string]func(t *testing.T, path string){
		"a link": func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			os.WriteFile(target, []byte(good), 0o600)
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		},
		"readable by others": func(t *testing.T, path string) {
			os.WriteFile(path, []byte(good), 0o600)
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"not a token": func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("short\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"a directory": func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		},
		"in a directory others may write to": func(t *testing.T, path string) {
			if err := os.Chmod(filepath.Dir(path), 0o777); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sudocode")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, mcpx.TokenFileName)
			setup(t, path)
			before, _ := os.Lstat(path)
			token, _, err := mcpx.UserToken(path)
			if err == nil || token != "" || !strings.Contains(err.Error(), path[:len(dir)]) {
				t.Fatalf("got %q, %v; want a refusal naming the file", token, err)
			}
			after, _ := os.Lstat(path)
			if (before == nil) != (after == nil) || (before != nil && !os.SameFile(before, after)) {
				t.Error("the refused file was replaced")
			}
		})
	}
}

// TestUserTokenFile: the token is kept under XDG_STATE_HOME when it is an
// absolute path, else under ~/.local/state.
func TestUserTokenFile(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/srv/state")
	if got, err := mcpx.UserTokenFile(); err != nil || got != "/srv/state/sudocode/token" {
		t.Errorf("with XDG_STATE_HOME: %q %v", got, err)
	}
	t.Setenv("XDG_STATE_HOME", "relative")
	t.Setenv("HOME", "/home/someone")
	if got, err := mcpx.UserTokenFile(); err != nil || got != "/home/someone/.local/state/sudocode/token" {
		t.Errorf("without it: %q %v", got, err)
	}
}
