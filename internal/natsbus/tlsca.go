package natsbus

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// The files of a fleet's certificate authority in its directory. The key
// file holds the certificate too: it is the one file whose creation
// decides which authority the directory has (see EnsureCA), so key and
// certificate can never come from two different racers. CAFile is the
// certificate alone, for people and other clients (nats --tlsca).
const (
	CAFile    = "ca.pem"
	CAKeyFile = "ca-key.pem"
)

// caValidity is how long an authority lasts: its certificate is pinned in
// every worker's credentials, which would all have to be issued again.
const caValidity = 10 * 365 * 24 * time.Hour

// clockSkew backdates certificates, so a machine whose clock is a little
// behind accepts them at once.
const clockSkew = time.Hour

// CA is a private certificate authority: it signs the embedded server's
// certificate, and clients that pin it (Creds.CA) trust that alone.
type CA struct {
	// CertPEM is the authority's certificate, PEM-encoded: what
	// credentials pin.
	CertPEM string
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
}

// EnsureCA returns the certificate authority kept in dir, making it the
// first time. Two processes that make it at once end up with the same
// one: each writes its own to a temporary file and links it into place,
// which only the first link does; the other reads the winner's.
func EnsureCA(dir string) (*CA, error) {
	ca, err := LoadCA(dir)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return ca, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("natsbus: certificate authority: %w", err)
	}
	keyPEM, certPEM, err := newCA(time.Now())
	if err != nil {
		return nil, err
	}
	if err := linkNew(filepath.Join(dir, CAKeyFile), append(keyPEM, certPEM...), 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return LoadCA(dir) // ours, or the racer's that was linked first
}

// LoadCA reads the certificate authority kept in dir; an error wrapping
// fs.ErrNotExist when it has none. It writes CAFile again if it is
// missing.
func LoadCA(dir string) (*CA, error) {
	path := filepath.Join(dir, CAKeyFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("natsbus: certificate authority: %w", err)
	}
	ca := &CA{}
	for rest := b; ; {
		var blk *pem.Block
		if blk, rest = pem.Decode(rest); blk == nil {
			break
		}
		switch blk.Type {
		case "EC PRIVATE KEY":
			ca.key, err = x509.ParseECPrivateKey(blk.Bytes)
		case "CERTIFICATE":
			ca.cert, err = x509.ParseCertificate(blk.Bytes)
			ca.CertPEM = string(pem.EncodeToMemory(blk))
		}
		if err != nil {
			return nil, fmt.Errorf("natsbus: certificate authority %s: %w", path, err)
		}
	}
	if ca.key == nil || ca.cert == nil || !ca.cert.IsCA {
		return nil, fmt.Errorf("natsbus: certificate authority %s: want an EC private key and its CA certificate", path)
	}
	if !ca.key.PublicKey.Equal(ca.cert.PublicKey) {
		return nil, fmt.Errorf("natsbus: certificate authority %s: the key is not the certificate's", path)
	}
	certPath := filepath.Join(dir, CAFile)
	if _, err := os.Stat(certPath); errors.Is(err, fs.ErrNotExist) {
		// Every process writes the same bytes, so the rename of any
		// racer leaves the right file.
		if err := writeReplace(certPath, []byte(ca.CertPEM), 0o644); err != nil {
			return nil, err
		}
	}
	return ca, nil
}

// Expires is when the authority's certificate, and so every credential
// that pins it, stops being valid.
func (ca *CA) Expires() time.Time { return ca.cert.NotAfter }

// newCA makes an authority's key and self-signed certificate, PEM-encoded.
func newCA(now time.Time) (keyPEM, certPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("natsbus: certificate authority key: %w", err)
	}
	host, _ := os.Hostname()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{Organization: []string{"sudocode"}, CommonName: "sudocode fleet CA " + host},
		NotBefore:             now.Add(-clockSkew),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true, // it signs servers' certificates only, no other authority
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("natsbus: certificate authority: %w", err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("natsbus: certificate authority key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// serial is a random 128-bit certificate serial number.
func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	return n
}

// CertPool is a pool of the PEM certificates in pemCerts alone.
func CertPool(pemCerts string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(pemCerts)) {
		return nil, errors.New("no PEM certificate in it")
	}
	return pool, nil
}

// linkNew writes data to a temporary file beside path and links it to
// path, failing with an error wrapping fs.ErrExist if path exists: unlike
// a rename, a link never replaces a file another process put there.
func linkNew(path string, data []byte, mode os.FileMode) error {
	tmp, err := writeTemp(path, data, mode)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		return fmt.Errorf("natsbus: %w", err)
	}
	return nil
}

// writeReplace writes data to path through a temporary file renamed into
// place, so a reader never sees half of it.
func writeReplace(path string, data []byte, mode os.FileMode) error {
	tmp, err := writeTemp(path, data, mode)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("natsbus: %w", err)
	}
	return nil
}

// writeTemp writes data, synced, to a new temporary file of mode beside
// path and returns its name.
func writeTemp(path string, data []byte, mode os.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return "", fmt.Errorf("natsbus: %w", err)
	}
	err = f.Chmod(mode)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("natsbus: %w", err)
	}
	return f.Name(), nil
}
