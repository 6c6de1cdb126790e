package natsbus

import (
	"fmt"
	"slices"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// User is one identity that may connect: an nkey user.
type User struct {
	Name        string       // for logs and the inbox prefix; a plain token
	NKey        string       // the public "U..." key
	Permissions *Permissions // nil = everything
}

// Permissions confine what a user may publish and subscribe to. An empty
// allow list allows everything not denied; a non-empty one allows only
// what it matches. NATS wildcards (* and >) work in every list.
type Permissions struct {
	PublishAllow, PublishDeny, SubscribeAllow, SubscribeDeny []string
}

// checkUsers refuses users the server could not tell apart or that have
// no valid key: a bad key would only show later as a refused connection.
func checkUsers(users []User) error {
	seen := map[string]bool{}
	for _, u := range users {
		if !nameRE().MatchString(u.Name) {
			return fmt.Errorf("natsbus: user name %q: want letters, digits, '-' or '_'", u.Name)
		}
		if !nkeys.IsValidPublicUserKey(u.NKey) {
			return fmt.Errorf("natsbus: user %s: %q is not a public nkey user key", u.Name, u.NKey)
		}
		if seen[u.NKey] {
			return fmt.Errorf("natsbus: user %s: key %s listed twice", u.Name, u.NKey)
		}
		seen[u.NKey] = true
	}
	return nil
}

// server turns p into the server's permissions; nil stays nil (all).
func (p *Permissions) server() *server.Permissions {
	if p == nil {
		return nil
	}
	sp := &server.Permissions{}
	if len(p.PublishAllow)+len(p.PublishDeny) > 0 {
		sp.Publish = &server.SubjectPermission{Allow: slices.Clone(p.PublishAllow), Deny: slices.Clone(p.PublishDeny)}
	}
	if len(p.SubscribeAllow)+len(p.SubscribeDeny) > 0 {
		sp.Subscribe = &server.SubjectPermission{Allow: slices.Clone(p.SubscribeAllow), Deny: slices.Clone(p.SubscribeDeny)}
	}
	return sp
}
