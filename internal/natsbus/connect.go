package natsbus

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// connectTimeout bounds one attempt when ctx has no earlier deadline.
const connectTimeout = 10 * time.Second

// InboxPrefix is the reply prefix of a user's connections; permissions
// allow a user to subscribe only under its own.
func InboxPrefix(name string) string { return "_INBOX_" + name }

// Connect connects to url (one URL, or several separated by commas, e.g.
// a cluster's) as the nkey user c. It tries once: a server that is not up
// is an error naming url, not a wait. Once connected the client reconnects
// without end (a worker outlives a server restart); opts come after these
// defaults and may change them.
func Connect(ctx context.Context, url string, c Creds, opts ...nats.Option) (*nats.Conn, error) {
	if !nameRE().MatchString(c.Name) {
		return nil, fmt.Errorf("natsbus: connect to %s: user name %q: want letters, digits, '-' or '_'", url, c.Name)
	}
	kp, err := nkeys.FromSeed([]byte(c.Seed))
	if err != nil {
		return nil, fmt.Errorf("natsbus: connect to %s as %s: not an nkey seed: %w", url, c.Name, err)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, err
	}
	timeout := connectTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(d))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("natsbus: connect to %s: %w", url, err)
	}
	all := []nats.Option{
		nats.Name(c.Name),
		nats.Nkey(pub, kp.Sign),
		nats.CustomInboxPrefix(InboxPrefix(c.Name)),
		nats.Timeout(timeout),
		nats.MaxReconnects(-1),
	}
	if c.CA != "" {
		cfg, err := pinnedTLS(c.CA)
		if err != nil {
			return nil, fmt.Errorf("natsbus: connect to %s as %s: the credentials' TLS authority: %w", url, c.Name, err)
		}
		all = append(all, nats.Secure(cfg))
	}
	nc, err := nats.Connect(url, append(all, opts...)...)
	if err != nil {
		var unknown x509.UnknownAuthorityError
		switch {
		case errors.Is(err, nats.ErrAuthorization):
			return nil, fmt.Errorf("natsbus: connect to %s as %s (%s): refused: %w", url, c.Name, pub, err)
		case errors.Is(err, nats.ErrSecureConnWanted):
			return nil, notTheFleet{fmt.Errorf("natsbus: connect to %s as %s: these credentials pin a TLS authority, and the server offers no TLS: %w", url, c.Name, err)}
		case errors.Is(err, errNotPinned):
			return nil, notTheFleet{fmt.Errorf("natsbus: connect to %s as %s: %w (a server of another fleet, or someone in between)", url, c.Name, err)}
		case c.CA == "" && errors.As(err, &unknown):
			return nil, notTheFleet{fmt.Errorf("natsbus: connect to %s as %s: the server's TLS certificate is signed by an authority this system does not trust, "+
				"and these credentials pin none (issued before the server had its authority? issue them again, or append its ca.pem to them): %w", url, c.Name, err)}
		}
		return nil, fmt.Errorf("natsbus: connect to %s as %s: %w", url, c.Name, err)
	}
	return nc, nil
}

// ErrNotTheFleet is in the error of a connection refused for what trying
// again cannot change: the server is not the one the credentials are for
// (another fleet's, someone in between, one with no TLS), or the
// credentials cannot tell (they pin no authority).
var ErrNotTheFleet = errors.New("natsbus: not the server these credentials are for")

// notTheFleet marks an error as ErrNotTheFleet, its text unchanged.
type notTheFleet struct{ error }

func (notTheFleet) Is(target error) bool { return target == ErrNotTheFleet }
func (e notTheFleet) Unwrap() error      { return e.error }

// errNotPinned is the handshake's error when the server's certificate is
// not signed by the pinned authority.
var errNotPinned = errors.New("the server's TLS certificate is not signed by the authority these credentials pin")

// pinnedTLS is a client TLS configuration that trusts the authority of
// caPEM alone and checks no host name.
//
// Skipping the host name check is safe here: the authority is the fleet's
// own, private (its key never leaves the coordinator's fleet directory),
// and signs nothing but that coordinator's server certificates, so a
// chain that verifies against it is the coordinator, whatever name or
// address a worker reaches it by (a LAN name, a tunnel's localhost, an
// IP). What the host name check guards against, a certificate a public
// authority issued to another name, cannot verify against this pool.
// crypto/tls offers no way to keep chain verification and drop only the
// name check, hence InsecureSkipVerify with the chain checked in
// VerifyConnection, which runs on every handshake, reconnections too.
func pinnedTLS(caPEM string) (*tls.Config, error) {
	roots, err := CertPool(caPEM)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true, // the chain is verified in VerifyConnection, against roots alone
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errNotPinned
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{
				Roots: roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			})
			if err != nil {
				return fmt.Errorf("%w: %v", errNotPinned, err)
			}
			return nil
		},
	}, nil
}
