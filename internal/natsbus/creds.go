package natsbus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nkeys"
)

// Creds are one nkey user's credentials: Public goes into the server's
// User list, Seed stays with the user and signs its connections.
type Creds struct {
	Name, Public, Seed string
	// CA, when set, is the PEM certificate of the authority that signs
	// the server's certificate: Connect then requires TLS and trusts that
	// authority alone (see Connect). Empty: the connection is as the
	// server offers it.
	CA string
}

// User is the server-side entry for c, with perms (nil = everything).
func (c Creds) User(perms *Permissions) User {
	return User{Name: c.Name, NKey: c.Public, Permissions: perms}
}

// NewCreds makes a new key pair for the user name.
func NewCreds(name string) (Creds, error) {
	if !nameRE().MatchString(name) {
		return Creds{}, fmt.Errorf("natsbus: user name %q: want letters, digits, '-' or '_'", name)
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return Creds{}, fmt.Errorf("natsbus: new user key: %w", err)
	}
	defer kp.Wipe()
	pub, err := kp.PublicKey()
	if err != nil {
		return Creds{}, err
	}
	seed, err := kp.Seed()
	if err != nil {
		return Creds{}, err
	}
	return Creds{Name: name, Public: pub, Seed: string(seed)}, nil
}

const namePrefix = "# name: "

// caComment introduces the pinned authority in a creds file.
const caComment = "# the TLS certificate authority of the server: connections trust it alone\n"

// WriteCreds writes c to path with mode 0600. It writes a temporary file
// beside path and renames it into place, so a reader never sees half a
// seed, and refuses to replace an existing file: a seed that is
// overwritten by mistake locks its user out for good. Remove the file
// first to replace it.
func WriteCreds(path string, c Creds) error {
	if _, err := parseSeed(c.Seed); err != nil {
		return fmt.Errorf("natsbus: write creds %s: %w", path, err)
	}
	if c.CA != "" {
		if _, err := CertPool(c.CA); err != nil {
			return fmt.Errorf("natsbus: write creds %s: the TLS authority: %w", path, err)
		}
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("natsbus: write creds: %s exists; remove it first to replace it", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("natsbus: write creds: %w", err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".creds-*")
	if err != nil {
		return fmt.Errorf("natsbus: write creds: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	content := fmt.Sprintf("# sudocode NATS user credentials: keep secret\n%s%s\n%s\n", namePrefix, c.Name, c.Seed)
	if c.CA != "" {
		// After the seed, which nats.go's NkeyOptionFromSeed takes from
		// the first line that looks like one.
		content += caComment + strings.TrimSpace(c.CA) + "\n"
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("natsbus: write creds: %w", err)
	}
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return fmt.Errorf("natsbus: write creds: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("natsbus: write creds: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("natsbus: write creds: %w", err)
	}
	// Link, not rename: link fails when path appeared meanwhile, where
	// rename would replace it.
	if err := os.Link(tmp.Name(), path); err != nil {
		return fmt.Errorf("natsbus: write creds: %w", err)
	}
	return nil
}

// ReadCreds reads credentials WriteCreds wrote (those of files written
// before credentials pinned an authority too: their CA is empty). It
// refuses a file others may read (the seed is a secret) and one without a
// user seed.
func ReadCreds(path string) (Creds, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Creds{}, fmt.Errorf("natsbus: creds file %s does not exist", path)
		}
		return Creds{}, fmt.Errorf("natsbus: creds: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return Creds{}, fmt.Errorf("natsbus: creds file %s has mode %v: others may read the seed; chmod 600 it", path, fi.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Creds{}, fmt.Errorf("natsbus: creds: %w", err)
	}
	var c Creds
	var ca strings.Builder
	inPEM := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "-----BEGIN "):
			inPEM = true
			ca.WriteString(line + "\n")
		case inPEM:
			// A base64 line may begin with S too: it is no seed.
			ca.WriteString(line + "\n")
			inPEM = !strings.HasPrefix(line, "-----END ")
		case strings.HasPrefix(line, namePrefix):
			c.Name = strings.TrimSpace(strings.TrimPrefix(line, namePrefix))
		case strings.HasPrefix(line, "S") && c.Seed == "":
			c.Seed = line
		}
	}
	if inPEM {
		return Creds{}, fmt.Errorf("natsbus: creds file %s: its TLS authority's certificate is cut short", path)
	}
	if c.CA = ca.String(); c.CA != "" {
		if _, err := CertPool(c.CA); err != nil {
			return Creds{}, fmt.Errorf("natsbus: creds file %s: its TLS authority: %w", path, err)
		}
	}
	if c.Seed == "" {
		return Creds{}, fmt.Errorf("natsbus: creds file %s holds no nkey seed", path)
	}
	pub, err := parseSeed(c.Seed)
	if err != nil {
		return Creds{}, fmt.Errorf("natsbus: creds file %s: %w", path, err)
	}
	c.Public = pub
	return c, nil
}

// parseSeed checks that seed is an nkey user seed and returns its public key.
func parseSeed(seed string) (string, error) {
	kp, err := nkeys.FromSeed([]byte(seed))
	if err != nil {
		return "", fmt.Errorf("not an nkey seed: %w", err)
	}
	defer kp.Wipe()
	pub, err := kp.PublicKey()
	if err != nil {
		return "", err
	}
	if !nkeys.IsValidPublicUserKey(pub) {
		return "", errors.New("not an nkey user seed")
	}
	return pub, nil
}
