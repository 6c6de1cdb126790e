// Package trust records which repository files the user allowed to run
// commands, as direnv's allow and mise's trust do: the SHA-256 of the
// file's bytes with the canonical path of its project, kept in the user's
// state directory ($XDG_STATE_HOME/sudocode/trust, else
// ~/.local/state/sudocode/trust), never in the repository. A file whose
// bytes differ from the ones trusted is not trusted: a pull or an agent
// that changes it has to be trusted again.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sudocode/sudocode/internal/userenv"
)

// Record is one trusted file.
type Record struct {
	Project   string    `json:"project"` // canonical path of the project's top directory
	File      string    `json:"file"`    // the file, relative to Project
	SHA256    string    `json:"sha256"`  // hex digest of the bytes trusted
	TrustedAt time.Time `json:"trusted_at"`
}

// Digest is the hex SHA-256 of b, as records keep it.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Dir is where the records of the user of env live:
// $XDG_STATE_HOME/sudocode/trust when XDG_STATE_HOME is an absolute path,
// else ~/.local/state/sudocode/trust.
func Dir(env userenv.Env) (string, error) {
	st, err := env.StateDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the state directory for trusted files: %w (set XDG_STATE_HOME)", err)
	}
	return filepath.Join(st, "sudocode", "trust"), nil
}

// Store is a directory of records, one file per trusted project file, so
// that writers of different projects never touch the same file and each
// write is one atomic rename.
type Store struct{ dir string }

// Open returns the store of the user of env (see Dir).
func Open(env userenv.Env) (Store, error) {
	d, err := Dir(env)
	return Store{dir: d}, err
}

// Canonical is project's absolute path with its symlinks resolved: the
// one name a project is trusted under, however it is reached.
func Canonical(project string) (string, error) {
	abs, err := filepath.Abs(project)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// recordPath names project's file's record: a digest of both, so that no
// path can make a name that leaves the directory.
func (s Store) recordPath(project, file string) string {
	return filepath.Join(s.dir, Digest([]byte(project + "\x00" + file))[:32]+".json")
}

// Lookup returns the record of project's file, if there is one.
func (s Store) Lookup(project, file string) (Record, bool, error) {
	project, err := Canonical(project)
	if err != nil {
		return Record{}, false, err
	}
	b, err := os.ReadFile(s.recordPath(project, file))
	if errors.Is(err, os.ErrNotExist) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil || r.Project != project || r.File != file {
		return Record{}, false, nil // damaged or not this file's: not trusted
	}
	return r, true, nil
}

// Allow records content as project's trusted file, replacing what was
// trusted before. The record is written to a temporary file (mode 0600)
// and renamed into place.
func (s Store) Allow(project, file string, content []byte) (Record, error) {
	project, err := Canonical(project)
	if err != nil {
		return Record{}, err
	}
	r := Record{Project: project, File: file, SHA256: Digest(content), TrustedAt: time.Now().UTC().Truncate(time.Second)}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return Record{}, err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return Record{}, err
	}
	tmp, err := os.CreateTemp(s.dir, ".record-*")
	if err != nil {
		return Record{}, err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return Record{}, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return Record{}, err
	}
	if err := tmp.Close(); err != nil {
		return Record{}, err
	}
	if err := os.Rename(tmp.Name(), s.recordPath(project, file)); err != nil {
		return Record{}, err
	}
	return r, nil
}

// Revoke forgets project's file; false when it was not trusted.
func (s Store) Revoke(project, file string) (bool, error) {
	project, err := Canonical(project)
	if err != nil {
		return false, err
	}
	err = os.Remove(s.recordPath(project, file))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
