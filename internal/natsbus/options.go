package natsbus

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ServerOptions configure an embedded server.
type ServerOptions struct {
	Dir     string          // JetStream file store and the server's state live under it (required)
	Host    string          // default "127.0.0.1"
	Port    int             // 0 = any free port (the chosen one is in ClientURL)
	Name    string          // server name; default "sudocode-" and a hash of the host name and Dir
	Cluster *ClusterOptions // nil: a single server
	Users   []User          // who may connect; nkey users with permissions
	// NoAuth lets anyone who reaches the port connect with every right.
	// It is only for tests and tools on a private socket; Start refuses
	// an empty Users list without it.
	NoAuth bool
	// TLS, when set, makes clients connect over TLS with this
	// configuration (its certificate, e.g. CA.ServerTLS): the server
	// refuses a client that does not. Clients still authenticate with
	// their nkey; no client certificate is asked for. Routes between a
	// cluster's nodes are not affected.
	TLS *tls.Config
	// Log receives the server's warnings and errors; nil logs nothing.
	Log *slog.Logger
}

// ClusterOptions make the server one node of a cluster.
type ClusterOptions struct {
	Name   string   // the cluster's name, the same on every node (required)
	Host   string   // default "127.0.0.1"
	Port   int      // 0 = any free port (see ClusterURL)
	Routes []string // nats-route://host:port of the other nodes
	// Secret, the same on every node, is the password routes present to
	// each other. A route passes any client's messages unchecked, so a
	// cluster port that is not on loopback must have one: Start refuses
	// it otherwise.
	Secret string
}

// routeUser is the user name routes authenticate with; Secret is the
// password.
const routeUser = "sudocode-route"

const defaultHost = "127.0.0.1"

// nameRE is what a server or cluster name may be: NATS refuses spaces and
// wildcards in them, and we keep to one plain token. Compiled on first
// use: at the program's start it would cost every re-executed sandbox
// stage the time.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// check validates o and fills its defaults, returning the filled copy.
func (o ServerOptions) check() (ServerOptions, error) {
	if o.Dir == "" {
		return o, errors.New("natsbus: ServerOptions.Dir is required")
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return o, fmt.Errorf("natsbus: dir %q: %w", o.Dir, err)
	}
	o.Dir = dir
	if len(o.Users) == 0 && !o.NoAuth {
		return o, errors.New("natsbus: no users: refusing to start a server anyone may use (set NoAuth to mean it)")
	}
	if err := checkUsers(o.Users); err != nil {
		return o, err
	}
	if o.Host == "" {
		o.Host = defaultHost
	}
	if o.Name == "" {
		// Unique per machine and directory: a cluster's nodes must have
		// different names, and may share a path on different machines.
		host, _ := os.Hostname()
		sum := sha256.Sum256([]byte(host + "\x00" + dir))
		o.Name = "sudocode-" + hex.EncodeToString(sum[:6])
	}
	if !nameRE().MatchString(o.Name) {
		return o, fmt.Errorf("natsbus: server name %q: want letters, digits, '-' or '_'", o.Name)
	}
	if c := o.Cluster; c != nil {
		cc := *c
		if !nameRE().MatchString(cc.Name) {
			return o, fmt.Errorf("natsbus: cluster name %q: want letters, digits, '-' or '_'", cc.Name)
		}
		if cc.Host == "" {
			cc.Host = defaultHost
		}
		if ip := net.ParseIP(cc.Host); cc.Secret == "" && (ip == nil || !ip.IsLoopback()) {
			return o, fmt.Errorf("natsbus: cluster port on %s without a Secret: any host that reaches it could join the cluster", cc.Host)
		}
		for _, r := range cc.Routes {
			u, err := url.Parse(r)
			if err != nil || u.Scheme != "nats-route" || u.Host == "" {
				return o, fmt.Errorf("natsbus: route %q: want nats-route://host:port", r)
			}
		}
		o.Cluster = &cc
	}
	return o, nil
}

// tlsTimeout is how long a client has to finish the TLS handshake: a
// worker on another continent takes a few round trips.
const tlsTimeout = 5 * time.Second

// port maps our "0 = any free port" to the server's, where 0 means the
// default port and -1 any free one.
func port(p int) int {
	if p == 0 {
		return server.RANDOM_PORT
	}
	return p
}

// serverOptions turns o, already checked, into nats-server's options.
func (o ServerOptions) serverOptions() (*server.Options, error) {
	so := &server.Options{
		ServerName: o.Name,
		Host:       o.Host,
		Port:       port(o.Port),
		JetStream:  true,
		StoreDir:   o.Dir,
		NoSigs:     true,
		NoLog:      o.Log == nil,
		// No monitoring, leaf nodes, gateways or websockets: not asked for.
		HTTPPort: 0,
	}
	if o.TLS != nil {
		so.TLS, so.TLSConfig = true, o.TLS.Clone()
		so.TLSTimeout = tlsTimeout.Seconds()
	}
	if c := o.Cluster; c != nil {
		so.Cluster = server.ClusterOpts{Name: c.Name, Host: c.Host, Port: port(c.Port)}
		if c.Secret != "" {
			so.Cluster.Username, so.Cluster.Password = routeUser, c.Secret
		}
		for _, r := range c.Routes {
			u, err := url.Parse(r)
			if err != nil {
				return nil, err
			}
			if c.Secret != "" {
				u.User = url.UserPassword(routeUser, c.Secret)
			}
			so.Routes = append(so.Routes, u)
		}
	}
	return so, nil
}

// makeDir creates dir 0700, and tightens an existing one that others
// could read: it holds the streams' messages.
func makeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("natsbus: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("natsbus: %w", err)
	}
	return nil
}
