package natsbus

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Server is an in-process NATS server with JetStream.
type Server struct {
	mu   sync.Mutex // serialises SetUsers
	opts ServerOptions
	ns   *server.Server
	auth *authenticator // nil: a server started without users (NoAuth)
}

// readyPoll is how often Start and WaitJetStream look again at a server
// that is not ready yet: the server has no notification for either.
const readyPoll = 20 * time.Millisecond

// Start runs a server and returns once it accepts connections. A single
// server's JetStream is ready then too; a cluster node's is ready once the
// nodes elected a leader (see WaitJetStream), which needs the other nodes
// up: Start does not wait for them, so the nodes can be started in any
// order.
func Start(ctx context.Context, o ServerOptions) (*Server, error) {
	o, err := o.check()
	if err != nil {
		return nil, err
	}
	if err := makeDir(o.Dir); err != nil {
		return nil, err
	}
	so, err := o.serverOptions()
	if err != nil {
		return nil, err
	}
	var auth *authenticator
	if len(o.Users) > 0 {
		auth = newAuthenticator(o.Users)
		so.CustomClientAuthentication, so.AlwaysEnableNonce = auth, true
	}
	ns, err := server.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("natsbus: server %s: %w", o.Name, err)
	}
	fatal := make(chan error, 1)
	ns.SetLoggerV2(slogLogger{l: o.Log, fatal: fatal}, false, false, false)
	ns.Start()
	for !ns.ReadyForConnections(readyPoll) {
		if err := ctx.Err(); err != nil {
			ns.Shutdown()
			ns.WaitForShutdown()
			return nil, fmt.Errorf("natsbus: server %s not ready: %w", o.Name, err)
		}
		select {
		case err := <-fatal:
			ns.Shutdown()
			ns.WaitForShutdown()
			return nil, fmt.Errorf("natsbus: server %s: %w", o.Name, err)
		default:
		}
		if !ns.Running() {
			ns.WaitForShutdown()
			return nil, fmt.Errorf("natsbus: server %s stopped while starting (port in use, or a bad store under %s?)", o.Name, o.Dir)
		}
	}
	s := &Server{opts: o, ns: ns, auth: auth}
	// Keep the ports it chose: a reload must not see them change.
	s.opts.Port = ns.Addr().(*net.TCPAddr).Port
	if s.opts.Cluster != nil {
		s.opts.Cluster.Port = ns.ClusterAddr().Port
	}
	if o.Cluster == nil && !ns.JetStreamEnabled() {
		s.Shutdown()
		return nil, fmt.Errorf("natsbus: server %s: JetStream did not start (store %s)", o.Name, o.Dir)
	}
	return s, nil
}

// ClientURL is the URL clients connect to, nats://host:port.
func (s *Server) ClientURL() string {
	return "nats://" + net.JoinHostPort(s.opts.Host, strconv.Itoa(s.opts.Port))
}

// InProcess is the option that connects a client of this process to s
// over an in-memory pipe instead of TCP: no socket and no TLS to cross
// for messages that never leave the process (the coordinator's and its
// own worker's), the nkey checked all the same. Such a client must not
// ask for TLS (credentials without CA).
func (s *Server) InProcess() nats.Option { return nats.InProcessServer(s.ns) }

// WaitJetStream returns once the server's JetStream takes requests: at
// once for a single server, for a cluster node once the nodes elected a
// leader and this node caught up with it.
func (s *Server) WaitJetStream(ctx context.Context) error {
	t := time.NewTicker(readyPoll)
	defer t.Stop()
	for !s.ns.JetStreamEnabled() || !s.ns.JetStreamIsCurrent() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("natsbus: server %s: JetStream not ready: %w", s.opts.Name, ctx.Err())
		case <-t.C:
		}
	}
	return nil
}

// SetUsers replaces the users who may connect, at runtime, without a
// configuration reload. The connections of users no longer listed, or
// whose permissions changed, are closed: they reconnect with the new
// rights, or are refused.
func (s *Server) SetUsers(users []User) error {
	if err := checkUsers(users); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(users) == 0 && !s.opts.NoAuth {
		return errors.New("natsbus: no users: refusing to open the server to anyone")
	}
	if s.auth == nil {
		return errors.New("natsbus: a server started open (NoAuth, no users) cannot be given users at runtime")
	}
	for _, id := range s.auth.set(slices.Clone(users)) {
		_ = s.ns.DisconnectClientByID(id) // gone already: nothing to close
	}
	s.opts.Users = slices.Clone(users)
	return nil
}

// Shutdown stops the server and waits until it stopped.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}
