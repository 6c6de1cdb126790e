package natsbus

import (
	"context"
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
	if !nameRE.MatchString(c.Name) {
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
	nc, err := nats.Connect(url, append(all, opts...)...)
	if err != nil {
		if errors.Is(err, nats.ErrAuthorization) {
			return nil, fmt.Errorf("natsbus: connect to %s as %s (%s): refused: %w", url, c.Name, pub, err)
		}
		return nil, fmt.Errorf("natsbus: connect to %s as %s: %w", url, c.Name, err)
	}
	return nc, nil
}
