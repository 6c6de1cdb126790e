package fleet

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/sudocode/sudocode/internal/natsbus"
	"github.com/sudocode/sudocode/internal/testkit"
)

// testOptions are short enough that a lost lease or an expired presence
// shows within a test, scaled for a slow machine.
func testOptions() Options {
	return Options{LeaseTTL: testkit.Scale(2 * time.Second), Heartbeat: testkit.Scale(time.Second)}
}

// env is one embedded server, its coordinator and the users it admits.
type env struct {
	t     *testing.T
	srv   *natsbus.Server
	url   string
	coord *Fleet
	mu    sync.Mutex
	users []natsbus.User
}

func newEnv(t *testing.T) *env {
	t.Helper()
	coord, err := natsbus.NewCreds("coordinator")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, users: []natsbus.User{coord.User(CoordinatorPermissions())}}
	e.srv, err = natsbus.Start(testkit.Context(t, 30*time.Second), natsbus.ServerOptions{Dir: t.TempDir(), Users: e.users})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.srv.Shutdown)
	e.url = e.srv.ClientURL()
	e.coord = open(t, connect(t, e.url, coord))
	return e
}

func connect(t *testing.T, url string, c natsbus.Creds, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := natsbus.Connect(testkit.Context(t, 10*time.Second), url, c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func open(t *testing.T, nc *nats.Conn) *Fleet {
	t.Helper()
	f, err := Open(testkit.Context(t, 30*time.Second), nc, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// workerConn issues credentials for worker id of repos, admits it with
// WorkerPermissions and connects as it.
func (e *env) workerConn(id string, repos []string, opts ...nats.Option) *nats.Conn {
	e.t.Helper()
	c, err := natsbus.NewCreds(id)
	if err != nil {
		e.t.Fatal(err)
	}
	perms := WorkerPermissions(id, repos)
	e.mu.Lock()
	e.users = append(e.users, c.User(&perms))
	users := e.users
	e.mu.Unlock()
	if err := e.srv.SetUsers(users); err != nil {
		e.t.Fatal(err)
	}
	return connect(e.t, e.url, c, opts...)
}

// worker opens the fleet as a worker with its own restricted connection.
func (e *env) worker(id string, repos []string, opts ...nats.Option) (*Fleet, *nats.Conn) {
	e.t.Helper()
	nc := e.workerConn(id, repos, opts...)
	f, err := OpenWorker(testkit.Context(e.t, 30*time.Second), nc, testOptions())
	if err != nil {
		e.t.Fatal(err)
	}
	return f, nc
}

// running is a Work call in the background.
type running struct {
	stop context.CancelFunc
	done chan struct{} // closed when Work returned, err set
	err  error
}

// wait waits for Work to return and returns its error.
func (r *running) wait(t *testing.T) error {
	t.Helper()
	testkit.Receive(t, 30*time.Second, "Work to return", r.done)
	return r.err
}

// work runs f.Work until the test ends or stop is called.
func work(t *testing.T, f *Fleet, w WorkerInfo, h Handler) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = f.Work(ctx, w, h)
	}()
	t.Cleanup(func() {
		cancel()
		r.wait(t)
	})
	return r
}

func info(id string, repos, clis []string, labels ...string) WorkerInfo {
	return WorkerInfo{ID: id, Host: "host-" + id, Repos: repos, CLIs: clis, Labels: labels, Slots: 1, Version: "test"}
}

// settled waits until repo's offers for agent are all acked.
func (e *env) settled(repo, agent string) {
	e.t.Helper()
	ctx := testkit.Context(e.t, 30*time.Second)
	testkit.WaitFor(e.t, 30*time.Second, "the offers of "+repo+" acked", func() bool {
		c, err := e.coord.js.Consumer(ctx, offerStream(repo), agent)
		if err != nil {
			return false
		}
		ci, err := c.Info(ctx)
		return err == nil && ci.NumPending == 0 && ci.NumAckPending == 0 && ci.NumRedelivered == 0
	})
}

func offer(t *testing.T, f *Fleet, o Offer) {
	t.Helper()
	if err := f.Offer(testkit.Context(t, 10*time.Second), o); err != nil {
		t.Fatal(err)
	}
}
