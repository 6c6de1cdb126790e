package natsbus

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/sudocode/sudocode/internal/testkit"
)

func newCreds(t *testing.T, name string) Creds {
	t.Helper()
	c, err := NewCreds(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func start(t *testing.T, o ServerOptions) *Server {
	t.Helper()
	s, err := Start(testkit.Context(t, 30*time.Second), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

func connect(t *testing.T, url string, c Creds, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := Connect(testkit.Context(t, 10*time.Second), url, c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// asyncErrors collects the errors the server sends a connection, such as
// permission violations, which nats.go reports out of band.
func asyncErrors() (nats.Option, <-chan error) {
	ch := make(chan error, 16)
	return nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		select {
		case ch <- err:
		default:
		}
	}), ch
}

// roundTrip proves nc can publish on subject and receive it back.
func roundTrip(t *testing.T, nc *nats.Conn, subject string) {
	t.Helper()
	sub, err := nc.SubscribeSync(subject)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.Publish(subject, []byte("hi")); err != nil {
		t.Fatal(err)
	}
	ctx := testkit.Context(t, 10*time.Second)
	m, err := sub.NextMsgWithContext(ctx)
	if err != nil {
		t.Fatalf("no message back on %s: %v", subject, err)
	}
	if string(m.Data) != "hi" {
		t.Fatalf("got %q", m.Data)
	}
}
