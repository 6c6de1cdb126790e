// Package natsbus runs the NATS server Sudocode embeds and connects to it.
//
// A Server is nats-server in this process with JetStream on, its file store
// and state under one directory (created 0700). It listens on loopback
// unless told otherwise, logs nothing unless given a slog.Logger (and then
// only warnings and errors), and admits only the nkey users it was given:
// Start refuses an empty user list unless NoAuth is set, so a server is
// never open by default. SetUsers replaces the users at runtime (in a table
// of natsbus's own that the server asks at each connection: a
// configuration reload races with nats-server's own JetStream requests),
// which is how a worker issued new credentials gets in and a revoked one
// is disconnected and stays out.
//
// Several Servers form a cluster when each has ClusterOptions with routes
// to the others; JetStream then replicates streams across them (R3 on
// three nodes survives losing one). Every node of a JetStream cluster must
// list at least one route, so the ports must be known before the nodes
// start. Start returns once a node accepts connections; a cluster's
// JetStream is usable only once its nodes elected a leader, which
// WaitJetStream waits for.
//
// Routes authenticate with a shared secret (ClusterOptions.Secret), which
// a cluster port off loopback must have: a route passes any client's
// messages without checking them against the users' permissions. Routes
// are not encrypted: nodes on different machines belong on a network the
// operator trusts, or behind a tunnel.
//
// Clients connect over TLS when the server is given ServerOptions.TLS,
// typically a certificate signed by a private authority (EnsureCA keeps
// one in a directory; CA.ServerTLS makes the server's certificate): the
// server then refuses plain clients. Clients still authenticate with
// their nkey, not a certificate.
//
// Credentials are nkey user seeds in files of mode 0600, in the format
// nats.go's NkeyOptionFromSeed reads, with the user's name on a comment
// line and, after the seed, the PEM certificate of the server's authority
// when they pin one. Connect authenticates with them and gives the
// connection the inbox prefix "_INBOX_<name>", so a user's permissions
// can confine the replies it may receive to its own prefix; with a pinned
// authority it requires TLS and trusts that authority alone, so a man in
// the middle cannot pose as the server.
package natsbus
