package mcpx

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/sudocode/sudocode/internal/fault"
)

// The user's token: the bearer token of the servers that can run code
// (`sudocode serve`, `sudocode mcp agent --http`) when none is configured.
// It is made once and kept in the user's state directory, so that a
// restart keeps every client's configuration and every open page working.

// TokenFileName is the user's token's file in the state directory.
const TokenFileName = "token"

// UserTokenFile is where the user's token is kept:
// $XDG_STATE_HOME/sudocode/token, else ~/.local/state/sudocode/token.
func UserTokenFile() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "sudocode", TokenFileName), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", fault.New(fault.Unavailable, "no place to keep the server's token: neither XDG_STATE_HOME nor a home directory is set").
			WithHint("set XDG_STATE_HOME, or pass --token (or SUDOCODE_TOKEN)")
	}
	return filepath.Join(home, ".local", "state", "sudocode", TokenFileName), nil
}

// UserToken reads the token kept at path, making it first when there is
// none: a random token, written with mode 0600 in a directory made with
// mode 0700 and put in place atomically, so that two servers starting at
// once end up with the same one. made reports a token made now. A file
// that is a link, not a regular file, not the user's, or readable or
// writable by anyone else is refused: its token may be known to others.
func UserToken(path string) (token string, made bool, err error) {
	token, err = readUserToken(path)
	if !errors.Is(err, os.ErrNotExist) {
		return token, false, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, fault.Wrap(fault.Unavailable, err, "cannot make the directory of the server's token").
			WithHint("make " + dir + " writable, or pass --token (or SUDOCODE_TOKEN)")
	}
	if err := checkTokenDir(dir); err != nil {
		return "", false, err
	}
	tmp, err := os.CreateTemp(dir, ".token-*") // mode 0600
	if err != nil {
		return "", false, fault.Wrap(fault.Unavailable, err, "cannot write the server's token").
			WithHint("make " + dir + " writable, or pass --token (or SUDOCODE_TOKEN)")
	}
	defer os.Remove(tmp.Name())
	fresh := rand.Text()
	_, err = io.WriteString(tmp, fresh+"\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", false, fault.Wrap(fault.Unavailable, err, "cannot write the server's token to "+dir)
	}
	// A hard link puts the whole file in place only if there is none yet:
	// a server that started at the same time and won keeps its token, and
	// this one reads it.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			token, err = readUserToken(path)
			return token, false, err
		}
		return "", false, fault.Wrap(fault.Unavailable, err, "cannot write the server's token to "+path)
	}
	return fresh, true, nil
}

// readUserToken reads the token at path, refusing a file others could
// have read or written.
func readUserToken(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if errors.Is(err, syscall.ELOOP) {
			return "", untrustedToken(path, "it is a symbolic link")
		}
		return "", fault.Wrap(fault.Unavailable, err, "cannot read the server's token").
			WithHint("remove " + path + " to make a new one, or pass --token (or SUDOCODE_TOKEN)")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fault.Wrap(fault.Unavailable, err, "cannot read the server's token at "+path)
	}
	switch {
	case !st.Mode().IsRegular():
		return "", untrustedToken(path, "it is not a regular file")
	case !ownedByUser(st):
		return "", untrustedToken(path, "another user owns it")
	case st.Mode().Perm()&0o077 != 0:
		return "", untrustedToken(path, fmt.Sprintf("its mode %04o lets other users read or change it", st.Mode().Perm()))
	}
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", fault.Wrap(fault.Unavailable, err, "cannot read the server's token at "+path)
	}
	token := strings.TrimSpace(string(data))
	if len(token) < 16 || strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r > '~' }) {
		return "", fault.New(fault.Invalid, "the server's token in %s is not one: want at least 16 printable characters on one line", path).
			WithHint("remove the file to make a new token (every client then needs the new one), or pass --token")
	}
	return token, nil
}

// checkTokenDir refuses a directory another user could put a token of
// theirs into.
func checkTokenDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "cannot use the directory of the server's token")
	}
	if !ownedByUser(st) || st.Mode().Perm()&0o022 != 0 {
		return fault.New(fault.Invalid, "refusing to keep the server's token in %s: another user owns it or may write to it", dir).
			WithHint("chmod 700 " + dir + ", set XDG_STATE_HOME to a directory of yours, or pass --token")
	}
	return nil
}

func untrustedToken(path, why string) error {
	return fault.New(fault.Invalid, "refusing the server's token in %s: %s, so others may know it", path, why).
		WithHint("remove " + path + " to make a new one (every client then needs the new token), or pass --token")
}

// ownedByUser reports a file owned by the user this process runs as.
func ownedByUser(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}
