package natsbus

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/sudocode/sudocode/internal/testkit"
)

func ensureCA(t *testing.T, dir string) *CA {
	t.Helper()
	ca, err := EnsureCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// startTLS starts a server whose certificate ca signs, admitting users.
func startTLS(t *testing.T, ca *CA, users ...User) *Server {
	t.Helper()
	cfg, err := ca.ServerTLS()
	if err != nil {
		t.Fatal(err)
	}
	return start(t, ServerOptions{Dir: t.TempDir(), Users: users, TLS: cfg})
}

func TestTLSWithThePinnedCA(t *testing.T) {
	ca := ensureCA(t, t.TempDir())
	alice := newCreds(t, "alice")
	s := startTLS(t, ca, alice.User(nil))
	alice.CA = ca.CertPEM
	nc := connect(t, s.ClientURL(), alice)
	cs, err := nc.TLSConnectionState()
	if err != nil || len(cs.PeerCertificates) == 0 {
		t.Fatalf("not a TLS connection: %v", err)
	}
	roundTrip(t, nc, "hello")
	ctx := testkit.Context(t, 30*time.Second)
	js, _ := jetstream.New(nc)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "S", Subjects: []string{"s.>"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "s.one", []byte("over TLS")); err != nil {
		t.Fatal(err)
	}
	// By a name the certificate does not list, too: the pinned authority
	// is the server's identity, not its name.
	if l, err := net.Listen("tcp", "127.0.0.2:0"); err == nil { // not every system routes 127.0.0.2
		l.Close()
		s2 := start(t, ServerOptions{Dir: t.TempDir(), Host: "127.0.0.2", Users: []User{alice.User(nil)}, TLS: s.opts.TLS})
		roundTrip(t, connect(t, s2.ClientURL(), alice), "by-another-name")
	} else {
		t.Log("127.0.0.2 is not routed here: the other name is not tried")
	}
}

// A man in the middle, or a server of another fleet, presents a
// certificate another authority signed: a client pinned to its own
// authority refuses it in the handshake, before its nkey signs anything.
func TestTLSAnotherCAIsRefused(t *testing.T) {
	ours, theirs := ensureCA(t, t.TempDir()), ensureCA(t, t.TempDir())
	alice := newCreds(t, "alice")
	s := startTLS(t, theirs, alice.User(nil))
	alice.CA = ours.CertPEM
	_, err := Connect(testkit.Context(t, 10*time.Second), s.ClientURL(), alice)
	if err == nil || !errors.Is(err, errNotPinned) || !errors.Is(err, ErrNotTheFleet) || !strings.Contains(err.Error(), s.ClientURL()) {
		t.Fatalf("a server signed by another authority: %v, want the handshake refused", err)
	}
}

// Credentials that pin no authority (issued before there was one) trust
// the system's authorities, which do not know the fleet's: refused, with
// a hint.
func TestTLSUnpinnedClientIsRefused(t *testing.T) {
	ca := ensureCA(t, t.TempDir())
	alice := newCreds(t, "alice")
	s := startTLS(t, ca, alice.User(nil))
	_, err := Connect(testkit.Context(t, 10*time.Second), s.ClientURL(), alice)
	if err == nil || !strings.Contains(err.Error(), "pin none") || !errors.Is(err, ErrNotTheFleet) {
		t.Fatalf("credentials without the authority: %v, want a refusal saying they pin none", err)
	}
}

// A client that speaks plain NATS gets nothing past the server's INFO.
func TestTLSPlainClientIsRefused(t *testing.T) {
	ca := ensureCA(t, t.TempDir())
	s := startTLS(t, ca, newCreds(t, "alice").User(nil))
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.ClientURL(), "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(testkit.Scale(30 * time.Second))) // a bound, should the server hang
	r := bufio.NewReader(conn)
	info, err := r.ReadString('\n')
	if err != nil || !strings.Contains(info, `"tls_required":true`) {
		t.Fatalf("INFO %q, %v: want tls_required", info, err)
	}
	if _, err := conn.Write([]byte("CONNECT {\"verbose\":false}\r\nPING\r\nSUB > 1\r\n")); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(r)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept a plain connection open (read %q)", rest)
	}
	if strings.Contains(string(rest), "PONG") {
		t.Fatalf("a plain client got an answer: %q", rest)
	}
}

func TestTLSPinnedClientRefusesAPlainServer(t *testing.T) {
	ca := ensureCA(t, t.TempDir())
	alice := newCreds(t, "alice")
	s := start(t, ServerOptions{Dir: t.TempDir(), Users: []User{alice.User(nil)}})
	alice.CA = ca.CertPEM
	_, err := Connect(testkit.Context(t, 10*time.Second), s.ClientURL(), alice)
	if err == nil || !errors.Is(err, nats.ErrSecureConnWanted) || !errors.Is(err, ErrNotTheFleet) || !strings.Contains(err.Error(), "offers no TLS") {
		t.Fatalf("a pinned client and a plain server: %v", err)
	}
}

func TestCredsFileWithCA(t *testing.T) {
	ca := ensureCA(t, t.TempDir())
	c := newCreds(t, "w1")
	c.CA = ca.CertPEM
	path := filepath.Join(t.TempDir(), "w1.creds")
	if err := WriteCreds(path, c); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCreds(path)
	if err != nil || got != c {
		t.Fatalf("ReadCreds = %+v, %v; want %+v", got, err, c)
	}
	// nats.go still finds the seed in it.
	if _, err := nats.NkeyOptionFromSeed(path); err != nil {
		t.Fatalf("nats.go cannot read it: %v", err)
	}
	// A file cut in the middle of the certificate is refused, not read
	// as pinning nothing.
	b, _ := os.ReadFile(path)
	cut := filepath.Join(t.TempDir(), "cut.creds")
	os.WriteFile(cut, b[:len(b)-40], 0o600)
	if _, err := ReadCreds(cut); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("a cut certificate: %v", err)
	}
	// Credentials written before they pinned an authority pin it once
	// its certificate is appended to them (cat ca.pem >> NAME.creds).
	old := newCreds(t, "w2")
	oldPath := filepath.Join(t.TempDir(), "w2.creds")
	if err := WriteCreds(oldPath, old); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(oldPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(ca.CertPEM)
	f.Close()
	if got, err := ReadCreds(oldPath); err != nil || got.CA != ca.CertPEM || got.Seed != old.Seed {
		t.Fatalf("credentials with the authority appended: %+v, %v", got, err)
	}
	c.CA = "not a certificate"
	if err := WriteCreds(filepath.Join(t.TempDir(), "bad.creds"), c); err == nil {
		t.Fatal("WriteCreds took a CA that is no certificate")
	}
}

func TestEnsureCA(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fleet")
	if _, err := LoadCA(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("LoadCA of a directory without one: %v", err)
	}
	// Racers all end up with the one authority linked first.
	cas := make([]*CA, 8)
	var wg sync.WaitGroup
	for i := range cas {
		wg.Go(func() {
			ca, err := EnsureCA(dir)
			if err != nil {
				t.Error(err)
			}
			cas[i] = ca
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for _, ca := range cas[1:] {
		if ca.CertPEM != cas[0].CertPEM {
			t.Fatal("two racers made different authorities")
		}
	}
	for name, want := range map[string]os.FileMode{CAFile: 0o644, CAKeyFile: 0o600} {
		if m, err := statMode(filepath.Join(dir, name)); err != nil || m != want {
			t.Errorf("%s: mode %v %v, want %v", name, m, err, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, CAFile)); string(b) != cas[0].CertPEM {
		t.Errorf("%s is not the authority's certificate", CAFile)
	}
	if again := ensureCA(t, dir); again.CertPEM != cas[0].CertPEM {
		t.Fatal("EnsureCA made another authority over the one kept")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("files left in the directory: %v", entries)
	}
}
