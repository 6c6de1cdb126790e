package natsbus

import (
	"encoding/base64"
	"sync"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// authenticator admits the nkey users of its table, which SetUsers
// replaces under its own lock: no configuration reload, which in
// nats-server races with its own JetStream requests reading the options.
// It checks what the server's own nkey check does: the user's signature
// of the nonce sent in INFO, with the user's public key.
type authenticator struct {
	mu      sync.Mutex
	users   map[string]User     // by public key
	clients map[string][]uint64 // the client ids admitted, by public key
}

func newAuthenticator(users []User) *authenticator {
	a := &authenticator{clients: map[string][]uint64{}}
	a.set(users)
	return a
}

// set replaces the table and returns the client ids of the keys whose
// user went or changed: their connections must close (they reconnect with
// the new rights, or are refused).
func (a *authenticator) set(users []User) []uint64 {
	table := make(map[string]User, len(users))
	for _, u := range users {
		table[u.NKey] = u
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var drop []uint64
	for key, ids := range a.clients {
		if nu, ok := table[key]; !ok || !sameUser(nu, a.users[key]) {
			drop = append(drop, ids...)
			delete(a.clients, key)
		}
	}
	a.users = table
	return drop
}

func sameUser(a, b User) bool {
	if a.Name != b.Name || (a.Permissions == nil) != (b.Permissions == nil) {
		return false
	}
	if a.Permissions == nil {
		return true
	}
	p, q := a.Permissions, b.Permissions
	return equal(p.PublishAllow, q.PublishAllow) && equal(p.PublishDeny, q.PublishDeny) &&
		equal(p.SubscribeAllow, q.SubscribeAllow) && equal(p.SubscribeDeny, q.SubscribeDeny)
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Check implements server.Authentication.
func (a *authenticator) Check(c server.ClientAuthentication) bool {
	opts := c.GetOpts()
	if opts == nil || opts.Nkey == "" {
		return false
	}
	a.mu.Lock()
	u, ok := a.users[opts.Nkey]
	a.mu.Unlock()
	if !ok {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(opts.Sig)
	if err != nil {
		if sig, err = base64.StdEncoding.DecodeString(opts.Sig); err != nil {
			return false
		}
	}
	pub, err := nkeys.FromPublicKey(opts.Nkey)
	if err != nil || pub.Verify(c.GetNonce(), sig) != nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if cur, ok := a.users[opts.Nkey]; !ok || !sameUser(cur, u) {
		return false // replaced meanwhile
	}
	a.clients[opts.Nkey] = append(a.clients[opts.Nkey], c.GetID())
	c.RegisterUser(&server.User{Username: u.Name, Permissions: u.Permissions.server()})
	return true
}
