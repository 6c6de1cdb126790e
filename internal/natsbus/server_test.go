package natsbus

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/sudocode/sudocode/internal/testkit"
)

func TestStartRefusesNoUsers(t *testing.T) {
	_, err := Start(testkit.Context(t, 10*time.Second), ServerOptions{Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "no users") {
		t.Fatalf("Start without users: %v, want a refusal", err)
	}
	if _, err := Start(testkit.Context(t, 10*time.Second), ServerOptions{}); err == nil {
		t.Fatal("Start without Dir succeeded")
	}
}

func TestConnectWithCreds(t *testing.T) {
	alice := newCreds(t, "alice")
	dir := t.TempDir() + "/nats"
	s := start(t, ServerOptions{Dir: dir, Users: []User{alice.User(nil)}})
	if !strings.HasPrefix(s.ClientURL(), "nats://127.0.0.1:") || s.opts.Cluster != nil {
		t.Fatalf("url %q, cluster %+v", s.ClientURL(), s.opts.Cluster)
	}
	if fi, err := statMode(dir); err != nil || fi != 0o700 {
		t.Fatalf("dir mode %v %v, want 0700", fi, err)
	}
	nc := connect(t, s.ClientURL(), alice)
	roundTrip(t, nc, "hello")

	// The same name with a key the server does not know is refused.
	mallory := newCreds(t, "alice")
	_, err := Connect(testkit.Context(t, 10*time.Second), s.ClientURL(), mallory)
	if err == nil || !strings.Contains(err.Error(), s.ClientURL()) {
		t.Fatalf("unknown key: %v, want a refusal naming the url", err)
	}
}

func TestConnectNoServerFailsNamingURL(t *testing.T) {
	s := start(t, ServerOptions{Dir: t.TempDir(), Users: []User{newCreds(t, "a").User(nil)}})
	url := s.ClientURL()
	s.Shutdown()
	_, err := Connect(testkit.Context(t, 10*time.Second), url, newCreds(t, "a"))
	if err == nil || !strings.Contains(err.Error(), url) {
		t.Fatalf("connect to a stopped server: %v, want an error naming %s", err, url)
	}
}

func TestPublishPermissionRefused(t *testing.T) {
	bob := newCreds(t, "bob")
	s := start(t, ServerOptions{Dir: t.TempDir(), Users: []User{bob.User(&Permissions{PublishDeny: []string{"secret.>"}})}})
	opt, errs := asyncErrors()
	nc := connect(t, s.ClientURL(), bob, opt)
	roundTrip(t, nc, "open.x")
	if err := nc.Publish("secret.x", []byte("no")); err != nil {
		t.Fatal(err)
	}
	err := testkit.Receive(t, 10*time.Second, "the permission violation", errs)
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "permissions violation") {
		t.Fatalf("publish to a denied subject: %v", err)
	}
}

func TestSetUsers(t *testing.T) {
	alice, bob := newCreds(t, "alice"), newCreds(t, "bob")
	s := start(t, ServerOptions{Dir: t.TempDir(), Users: []User{alice.User(nil)}})
	if _, err := Connect(testkit.Context(t, 10*time.Second), s.ClientURL(), bob); err == nil {
		t.Fatal("bob connected before he was added")
	}
	if err := s.SetUsers([]User{alice.User(nil), bob.User(nil)}); err != nil {
		t.Fatal(err)
	}
	roundTrip(t, connect(t, s.ClientURL(), bob), "b")
	aliceNC := connect(t, s.ClientURL(), alice)
	if err := s.SetUsers([]User{bob.User(nil)}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 10*time.Second, "the removed user's connection dropped", func() bool { return !aliceNC.IsConnected() })
	if _, err := Connect(testkit.Context(t, 10*time.Second), s.ClientURL(), alice); err == nil {
		t.Fatal("alice connected after she was removed")
	}
	roundTrip(t, connect(t, s.ClientURL(), bob), "b")
	if err := s.SetUsers(nil); err == nil {
		t.Fatal("SetUsers(nil) opened the server")
	}
}

func TestJetStreamSurvivesRestart(t *testing.T) {
	alice := newCreds(t, "alice")
	dir := t.TempDir()
	o := ServerOptions{Dir: dir, Users: []User{alice.User(nil)}}
	s, err := Start(testkit.Context(t, 30*time.Second), o)
	if err != nil {
		t.Fatal(err)
	}
	nc := connect(t, s.ClientURL(), alice)
	ctx := testkit.Context(t, 30*time.Second)
	js, _ := jetstream.New(nc)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "KEEP", Subjects: []string{"keep.>"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "keep.one", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	s.Shutdown()

	s = start(t, o)
	js, _ = jetstream.New(connect(t, s.ClientURL(), alice))
	st, err := js.Stream(ctx, "KEEP")
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.GetLastMsgForSubject(ctx, "keep.one")
	if err != nil || string(m.Data) != "kept" {
		t.Fatalf("after restart: %v %v", m, err)
	}
}

// A port in use fails Start at once, saying so: nats-server only logs it
// and would never be ready.
func TestStartPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	_, err = Start(testkit.Context(t, 30*time.Second), ServerOptions{Dir: t.TempDir(), NoAuth: true, Port: port})
	if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), strconv.Itoa(port)) {
		t.Fatalf("Start on a port in use: %v, want an error naming the port", err)
	}
}
