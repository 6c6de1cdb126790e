package fleetrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/natsbus"
)

// CoordinatorUser is the NATS user name of the coordinator (serve): no
// worker may be called so.
const CoordinatorUser = "coordinator"

// LocalWorker is the id of the worker in the coordinator's process.
const LocalWorker = "local"

// HostOptions configure a coordinator's fleet.
type HostOptions struct {
	// Dir is the fleet directory: the embedded server's store, the
	// coordinator's credentials, the workers' registry and the URL
	// workers connect to.
	Dir string
	// URL is an external NATS server or cluster to use instead of the
	// embedded server, with the coordinator's credentials in Creds.
	URL, Creds string
	// Listen is the embedded server's host:port (default 127.0.0.1:0, a
	// free port); a non-loopback host admits workers of other machines.
	Listen string
	Fleet  fleet.Options
	Log    *slog.Logger
	// RegistryPoll is how often the registry is read again for workers
	// added or removed meanwhile (default 2s).
	RegistryPoll time.Duration
}

// Host is a coordinator's fleet: the embedded NATS server (or a
// connection to an external one), the fleet over it, and the workers it
// admits kept in step with the registry.
type Host struct {
	Fleet *fleet.Fleet
	Conn  *nats.Conn
	URL   string // what workers connect to
	// CA is the PEM certificate of the fleet's TLS authority, which
	// signs the embedded server's certificate and which the workers'
	// credentials pin; empty with an external server.
	CA string

	srv  *natsbus.Server
	lock *os.File // the fleet directory's, while the embedded server runs
	reg  *Registry
	stop context.CancelFunc
	wg   sync.WaitGroup
}

// StartHost starts the coordinator's fleet.
func StartHost(ctx context.Context, o HostOptions) (*Host, error) {
	h := &Host{reg: OpenRegistry(o.Dir)}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("the fleet directory: %w", err)
	}
	var err error
	if o.URL != "" {
		err = h.connectExternal(ctx, o)
	} else {
		err = h.startEmbedded(ctx, o)
	}
	if err != nil {
		h.Close()
		return nil, err
	}
	if o.Fleet.Replicas == 0 && len(h.Conn.Servers()) >= 3 {
		o.Fleet.Replicas = 3 // a cluster: every stream on three nodes, to lose one
	}
	if h.Fleet, err = fleet.Open(ctx, h.Conn, o.Fleet); err == nil {
		err = h.sync(ctx, o.Fleet.Replicas)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(o.Dir, "url"), []byte(h.URL+"\n"), 0o600)
	}
	if err != nil {
		h.Close()
		return nil, err
	}
	pctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	h.stop = stop
	poll := o.RegistryPoll
	if poll <= 0 {
		poll = 2 * time.Second
	}
	h.wg.Add(1)
	go h.follow(pctx, poll, o)
	return h, nil
}

// connectExternal connects to the external server of o.URL with the
// coordinator's credentials o.Creds, and marks the fleet directory as
// using it: credentials issued for it pin no authority of ours.
func (h *Host) connectExternal(ctx context.Context, o HostOptions) error {
	c, err := natsbus.ReadCreds(o.Creds)
	if err != nil {
		return err
	}
	if h.Conn, err = natsbus.Connect(ctx, o.URL, c); err != nil {
		return err
	}
	h.URL = o.URL
	return os.WriteFile(filepath.Join(o.Dir, externalMark), []byte(o.URL+"\n"), 0o600)
}

// startEmbedded starts the server in this process, with the
// coordinator's credentials (made at the first start) and the
// registry's workers as its users, and connects to it. The server speaks
// TLS only, on loopback too (one way to connect), with a certificate the
// fleet's authority (made at the first start) signs.
func (h *Host) startEmbedded(ctx context.Context, o HostOptions) error {
	var err error
	if h.lock, err = lockDir(o.Dir); err != nil {
		return err
	}
	coord, err := coordinatorCreds(filepath.Join(o.Dir, "coordinator.creds"))
	if err != nil {
		return err
	}
	ca, err := natsbus.EnsureCA(o.Dir)
	if err != nil {
		return err
	}
	if left := time.Until(ca.Expires()); left < caWarnBefore && o.Log != nil {
		o.Log.Warn("the fleet's certificate authority, which every worker's credentials pin, expires soon: to make a new one, stop serve, move "+
			natsbus.CAFile+" and "+natsbus.CAKeyFile+" out of the fleet directory, start serve, and issue every worker its credentials again (sudocode workers add NAME)",
			"expires", ca.Expires().Format(time.DateOnly), "dir", o.Dir)
	}
	h.CA, coord.CA = ca.CertPEM, ca.CertPEM
	host, port := "127.0.0.1", lastPort(o.Dir)
	if o.Listen != "" {
		hs, ps, err := net.SplitHostPort(o.Listen)
		if err != nil {
			return fmt.Errorf("--nats-listen %s: %w", o.Listen, err)
		}
		if port, err = strconv.Atoi(ps); err != nil {
			return fmt.Errorf("--nats-listen %s: the port is not a number", o.Listen)
		}
		host = hs
	}
	users, err := h.users(coord)
	if err != nil {
		return err
	}
	tlsConfig, err := ca.ServerTLS(host)
	if err != nil {
		return err
	}
	so := natsbus.ServerOptions{Dir: filepath.Join(o.Dir, "nats"), Host: host, Port: port, Users: users, TLS: tlsConfig, Log: o.Log}
	h.srv, err = natsbus.Start(ctx, so)
	if err != nil && o.Listen == "" && port != 0 {
		so.Port = 0 // the port of the last start is taken now: workers need the new URL
		h.srv, err = natsbus.Start(ctx, so)
	}
	if err == nil {
		err = h.srv.WaitJetStream(ctx)
	}
	if err != nil {
		return err
	}
	h.URL = h.srv.ClientURL()
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		// Every address of the machine: workers elsewhere reach it by name.
		if name, err := os.Hostname(); err == nil {
			h.URL = "nats://" + net.JoinHostPort(name, strconv.Itoa(portOf(h.srv.ClientURL())))
		}
	}
	// The coordinator (and serve's own worker, on its connection) reaches
	// the server in this process through memory: TLS guards the network,
	// which these messages never cross, and cost every message and log
	// line of every task an encryption and a decryption each way.
	local := coord
	local.CA = ""
	if h.Conn, err = natsbus.Connect(ctx, h.URL, local, h.srv.InProcess()); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(o.Dir, externalMark)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// caWarnBefore is how long before its authority expires serve says so at
// each start.
const caWarnBefore = 180 * 24 * time.Hour

// externalMark is the file in the fleet directory that says its serve
// last ran on an external NATS server (serve --nats), not the embedded
// one: the authority an earlier embedded start made signs nothing there.
const externalMark = "nats-external"

// FleetCA is the PEM certificate of the TLS authority of the fleet
// directory dir, which credentials for its embedded server pin. It is
// empty when the directory has none (its serve has not started the
// embedded server yet) and when its serve last ran on an external server
// (serve --nats), whose TLS is its operator's.
func FleetCA(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, externalMark)); err == nil {
		return "", nil
	}
	ca, err := natsbus.LoadCA(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return ca.CertPEM, nil
}

// portOf is the port of a nats://host:port URL (0 if none).
func portOf(u string) int {
	i := strings.LastIndexByte(u, ':')
	if i < 0 {
		return 0
	}
	p, _ := strconv.Atoi(u[i+1:])
	return p
}

// lastPort is the port the embedded server listened on at its last
// start (its URL kept in dir), which workers connect to; 0 if none, or if
// the URL kept is an external server's (serve --nats).
func lastPort(dir string) int {
	if _, err := os.Stat(filepath.Join(dir, externalMark)); err == nil {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(dir, "url"))
	if err != nil {
		return 0
	}
	if u := strings.TrimSpace(string(b)); strings.HasPrefix(u, "nats://127.0.0.1:") {
		return portOf(u)
	}
	return 0
}

// coordinatorCreds reads the coordinator's credentials at path, making
// them the first time.
func coordinatorCreds(path string) (natsbus.Creds, error) {
	c, err := natsbus.ReadCreds(path)
	if err == nil {
		return c, nil
	}
	if _, serr := os.Stat(path); !errors.Is(serr, fs.ErrNotExist) {
		return c, err
	}
	if c, err = natsbus.NewCreds(CoordinatorUser); err != nil {
		return c, err
	}
	if err := natsbus.WriteCreds(path, c); err != nil {
		return c, err
	}
	return natsbus.ReadCreds(path)
}

// users are the coordinator and the registry's workers.
func (h *Host) users(coord natsbus.Creds) ([]natsbus.User, error) {
	gs, err := h.reg.List()
	if err != nil {
		return nil, err
	}
	users := []natsbus.User{coord.User(fleet.CoordinatorPermissions())}
	for _, g := range gs {
		users = append(users, WorkerUser(g))
	}
	return users, nil
}

// sync makes the server's users and the grants those of the registry.
func (h *Host) sync(ctx context.Context, replicas int) error {
	gs, err := h.reg.List()
	if err != nil {
		return err
	}
	return publishGrants(ctx, h.Conn, gs, replicas)
}

// follow reads the registry every poll and, when its file changed,
// admits the workers added and shuts out those removed.
func (h *Host) follow(ctx context.Context, poll time.Duration, o HostOptions) {
	defer h.wg.Done()
	last := modTime(h.reg.path())
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		m := modTime(h.reg.path())
		if m.Equal(last) {
			continue
		}
		last = m
		if h.srv != nil {
			coord, err := natsbus.ReadCreds(filepath.Join(o.Dir, "coordinator.creds"))
			if err == nil {
				var users []natsbus.User
				if users, err = h.users(coord); err == nil {
					err = h.srv.SetUsers(users)
				}
			}
			if err != nil && o.Log != nil {
				o.Log.Warn("fleet: the workers' registry changed but could not be applied", "err", err)
			}
		}
		if err := h.sync(ctx, o.Fleet.Replicas); err != nil && o.Log != nil {
			o.Log.Warn("fleet: the workers' grants could not be published", "err", err)
		}
	}
}

func modTime(path string) time.Time {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// Close stops following the registry, closes the connection and stops
// the embedded server.
func (h *Host) Close() {
	if h.stop != nil {
		h.stop()
		h.wg.Wait()
	}
	if h.Conn != nil {
		h.Conn.Close()
	}
	if h.srv != nil {
		h.srv.Shutdown()
	}
	if h.lock != nil {
		h.lock.Close()
	}
}
