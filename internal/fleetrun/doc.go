// Package fleetrun runs Sudocode's tasks through the fleet (internal/fleet,
// NATS JetStream): it adapts the fleet to the orchestrator's Fleet port
// for a coordinator (Coordinator), performs the runs the fleet offers a
// worker (Worker), and keeps the coordinator's record of the workers it
// issued credentials to (Registry), which the embedded server admits.
//
// A repository is known to the fleet by a key (RepoKey) made from its
// directory's name and its first commit, the same in every clone: a
// worker's credentials name the keys of the repositories it may work on,
// and it never receives another's runs.
package fleetrun
