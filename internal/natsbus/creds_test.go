package natsbus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

func statMode(path string) (os.FileMode, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Perm(), nil
}

func TestCredsFile(t *testing.T) {
	c := newCreds(t, "w1")
	path := filepath.Join(t.TempDir(), "w1.creds")
	if err := WriteCreds(path, c); err != nil {
		t.Fatal(err)
	}
	if m, err := statMode(path); err != nil || m != 0o600 {
		t.Fatalf("mode %v %v, want 0600", m, err)
	}
	got, err := ReadCreds(path)
	if err != nil || got != c {
		t.Fatalf("ReadCreds = %+v, %v; want %+v", got, err, c)
	}
	// nats.go reads the same file.
	if _, err := nats.NkeyOptionFromSeed(path); err != nil {
		t.Fatalf("nats.go cannot read it: %v", err)
	}
	if err := WriteCreds(path, newCreds(t, "w1")); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("overwrite: %v", err)
	}
	if again, _ := ReadCreds(path); again != c {
		t.Fatal("the refused write changed the file")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

func TestReadCredsErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadCreds(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing: %v", err)
	}
	noSeed := filepath.Join(dir, "noseed")
	os.WriteFile(noSeed, []byte("# name: x\nhello\n"), 0o600)
	if _, err := ReadCreds(noSeed); err == nil || !strings.Contains(err.Error(), "no nkey seed") {
		t.Fatalf("no seed: %v", err)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("SUNOTASEED\n"), 0o600)
	if _, err := ReadCreds(bad); err == nil || !strings.Contains(err.Error(), "not an nkey seed") {
		t.Fatalf("bad seed: %v", err)
	}
	open := filepath.Join(dir, "open")
	if err := WriteCreds(open, newCreds(t, "o")); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o644)
	if _, err := ReadCreds(open); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable: %v", err)
	}
}
