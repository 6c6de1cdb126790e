package natsbus

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"time"
)

// serverCertValidity is how long a server certificate lasts; the server
// makes another one when the one it has is near its end (serverCertRenew),
// so a server that runs for years never serves an expired one.
const (
	serverCertValidity = 365 * 24 * time.Hour
	serverCertRenew    = 30 * 24 * time.Hour
)

// ServerTLS is a TLS configuration for a server whose certificate ca
// signs, made in memory (the key never touches the disk) for localhost,
// 127.0.0.1, ::1, this machine's host name and hosts. It asks clients for
// no certificate: they authenticate with their nkey.
func (ca *CA) ServerTLS(hosts ...string) (*tls.Config, error) {
	names := []string{"localhost", "127.0.0.1", "::1"}
	if h, err := os.Hostname(); err == nil && h != "" {
		names = append(names, h)
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); h != "" && (ip == nil || !ip.IsUnspecified()) && !slices.Contains(names, h) {
			names = append(names, h)
		}
	}
	sc := &serverCert{ca: ca, names: names}
	if _, err := sc.get(time.Now()); err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return sc.get(time.Now())
		},
	}, nil
}

// serverCert is the server's current certificate, remade near its end.
type serverCert struct {
	ca    *CA
	names []string

	mu   sync.Mutex
	cert *tls.Certificate
}

func (sc *serverCert) get(now time.Time) (*tls.Certificate, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.cert != nil && now.Add(serverCertRenew).Before(sc.cert.Leaf.NotAfter) {
		return sc.cert, nil
	}
	c, err := sc.ca.newServerCert(sc.names, now)
	if err != nil {
		return nil, err
	}
	sc.cert = c
	return c, nil
}

// newServerCert makes a key and a certificate for names (host names or
// IP addresses), signed by ca.
func (ca *CA) newServerCert(names []string, now time.Time) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("natsbus: server certificate key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{Organization: []string{"sudocode"}, CommonName: names[0]},
		NotBefore:    now.Add(-clockSkew),
		NotAfter:     now.Add(serverCertValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if tmpl.NotAfter.After(ca.cert.NotAfter) {
		tmpl.NotAfter = ca.cert.NotAfter
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, fmt.Errorf("natsbus: server certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("natsbus: server certificate: %w", err)
	}
	return &tls.Certificate{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: key, Leaf: leaf}, nil
}
