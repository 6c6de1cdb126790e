package fleetrun

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/natsbus"
	"github.com/sudocode/sudocode/internal/testkit"
)

// The embedded server speaks TLS with the fleet directory's authority,
// which credentials for it pin; an external server (serve --nats) is the
// operator's, and credentials issued for it pin nothing, even in a
// directory whose embedded server ran before.
func TestHostTLSAuthority(t *testing.T) {
	ctx := testkit.Context(t, 60*time.Second)
	dir := t.TempDir()
	if ca, err := FleetCA(dir); err != nil || ca != "" {
		t.Fatalf("FleetCA before the first start: %q, %v", ca, err)
	}
	h, err := StartHost(ctx, HostOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ca, err := FleetCA(dir)
	if err != nil || ca == "" || ca != h.CA {
		h.Close()
		t.Fatalf("FleetCA after the embedded server started: %q, %v; the host's %q", ca, err, h.CA)
	}
	// The coordinator's own connection stays in the process (a pipe, no
	// TLS to pay for); one over the network, with the same credentials
	// pinning the authority, gets TLS.
	if _, err := h.Conn.TLSConnectionState(); err == nil || h.Conn.ConnectedAddr() != "pipe" {
		h.Close()
		t.Fatalf("the coordinator's own connection goes through %q (TLS: %v), want an in-process pipe", h.Conn.ConnectedAddr(), err == nil)
	}
	coord, err := coordinatorCreds(filepath.Join(dir, "coordinator.creds"))
	if err != nil {
		h.Close()
		t.Fatal(err)
	}
	coord.CA = ca
	nc, err := natsbus.Connect(ctx, h.URL, coord)
	if err != nil {
		h.Close()
		t.Fatal(err)
	}
	if cs, err := nc.TLSConnectionState(); err != nil || len(cs.PeerCertificates) == 0 {
		h.Close()
		t.Fatalf("a connection over the network is not TLS: %v", err)
	}
	nc.Close()
	h.Close()

	// serve --nats: a plain server of the operator's.
	coord, err = natsbus.NewCreds(CoordinatorUser)
	if err != nil {
		t.Fatal(err)
	}
	coordFile := filepath.Join(t.TempDir(), "coordinator.creds")
	if err := natsbus.WriteCreds(coordFile, coord); err != nil {
		t.Fatal(err)
	}
	ext, err := natsbus.Start(ctx, natsbus.ServerOptions{Dir: t.TempDir(), Users: []natsbus.User{coord.User(fleet.CoordinatorPermissions())}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ext.Shutdown)
	h, err = StartHost(ctx, HostOptions{Dir: dir, URL: ext.ClientURL(), Creds: coordFile})
	if err != nil {
		t.Fatal(err)
	}
	if h.CA != "" {
		t.Errorf("a host on an external server has an authority")
	}
	if got, err := FleetCA(dir); err != nil || got != "" {
		t.Errorf("FleetCA while serve runs on an external server: %q, %v; want none", got, err)
	}
	h.Close()

	// Back on the embedded server: the same authority as before.
	h, err = StartHost(ctx, HostOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if got, err := FleetCA(dir); err != nil || got != ca || h.CA != ca {
		t.Fatalf("FleetCA after the embedded server started again: %v, another authority: %v", err, got != ca)
	}
}

// The embedded server listens on the port of its last start, which
// workers know; when another process took it meanwhile, it takes a free
// one (and says so in its URL) rather than waiting for the port.
func TestHostLastPortTaken(t *testing.T) {
	ctx := testkit.Context(t, 60*time.Second)
	dir := t.TempDir()
	h, err := StartHost(ctx, HostOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	first := h.URL
	h.Close()
	l, err := net.Listen("tcp", strings.TrimPrefix(first, "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if h, err = StartHost(ctx, HostOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if h.URL == first || !h.Conn.IsConnected() {
		t.Fatalf("restarted with the last port taken: %s (was %s), connected %v", h.URL, first, h.Conn.IsConnected())
	}
}

// serve says when the fleet's authority, which every worker's
// credentials pin, expires within months, and what to do; a new one it
// says nothing of.
func TestHostWarnsOfAnExpiringAuthority(t *testing.T) {
	for _, c := range []struct {
		left time.Duration
		warn bool
	}{{30 * 24 * time.Hour, true}, {0, false}} {
		ctx := testkit.Context(t, 60*time.Second)
		dir := t.TempDir()
		if c.left > 0 {
			writeCA(t, dir, time.Now().Add(c.left))
		}
		var log testkit.LockedBuffer
		h, err := StartHost(ctx, HostOptions{Dir: dir, Log: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		h.Close()
		if got := strings.Contains(log.String(), "certificate authority, which every worker's credentials pin, expires soon"); got != c.warn {
			t.Errorf("an authority with %v left: warned %v, want %v\n%s", c.left, got, c.warn, log.String())
		}
	}
}

// writeCA writes into dir an authority whose certificate expires at
// notAfter, as natsbus keeps one.
func writeCA(t *testing.T, dir string, notAfter time.Time) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "old fleet authority"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	b := append(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	if err := os.WriteFile(filepath.Join(dir, natsbus.CAKeyFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
}
