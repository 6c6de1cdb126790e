// Package fleet carries runs of tasks from a coordinator to workers on
// other machines over NATS JetStream. It knows nothing of the
// orchestrator: an offer's Body and a run message's Body are opaque bytes.
//
// # Names
//
// A repository is a token of [a-z0-9-] (1-64), an agent kind a token of
// [a-z0-9_-], a task id and a worker id tokens of [A-Za-z0-9_-]; each is
// one subject token and one KV key token. A run is repo/task/run, its key
// "<repo>.<task>.<run>".
//
// # Streams and buckets
//
//   - SUDOCODE_OFFERS_<repo>: a work-queue stream per repository, subjects
//     sudocode.offer.<repo>.<agent>, one durable pull consumer per agent
//     (named after it, shared by all that repository's workers with that
//     agent; work-queue consumers must not overlap, and one per agent
//     doesn't). Offers are deduplicated on "<task>.<run>" for a day. One
//     stream per repository, rather than one for all, is what lets a
//     worker's permissions name its repositories' consumers: a consumer's
//     API and ack subjects name the stream and the consumer, not the
//     subject it filters. The coordinator creates the stream and the
//     consumer on its first Offer for them; workers only bind.
//   - SUDOCODE_RUNS: limits retention, a week; subjects
//     sudocode.run.<repo>.<task>.<run>.<worker>. Workers publish what they
//     have to say about a run there (Claim.Send) and Watch reads it back in
//     order, from any sequence. The sender's id is the subject's last
//     token, which its permissions confine it to: it cannot be forged.
//   - KV sudocode-workers: presence, key <worker id>, expiring after 3
//     heartbeats (the bucket's TTL); a worker refreshes its own every
//     heartbeat and when its runs change, and deletes it on a clean stop.
//   - KV sudocode-leases: key <run>, TTL LeaseTTL: who runs a run now.
//   - KV sudocode-claims: key <run>, kept a week: how many times the run
//     was started (Claim.Delivery) and whether it finished.
//   - KV sudocode-cancels: key <run>, kept a week: Cancel's record.
//
// The buckets' TTLs come from the coordinator's Options when its Open
// creates them; OpenWorker takes LeaseTTL and Heartbeat from the buckets,
// so a worker cannot disagree with them.
//
// # The lease protocol
//
// A worker pulls one offer per free slot. It leaves an offer (naks it
// with a delay, to come back for another worker) whose labels it lacks,
// and one that prefers another worker while that worker's head start
// (PreferFor since the offer was made) lasts; the coordinator drops a
// Prefer naming a worker that is not alive when it offers. It drops (acks)
// an offer whose run was cancelled. Otherwise it creates the run's lease
// (a KV create: it fails when the key exists), and when another worker
// holds it, leaves the offer for a third of LeaseTTL: a duplicate
// delivery never runs a run twice at once. Holding the lease it reads
// the claim record: a run marked done is acked and dropped (its earlier
// ack was lost); otherwise it counts the start and runs the handler.
//
// Every LeaseTTL/3 while the handler runs it renews the lease (a KV
// update on the revision it holds) and tells the consumer the message is
// in progress, which restarts its ack wait (LeaseTTL). When the lease
// turns out taken or gone, or could not be renewed for half its life,
// the handler's context is cancelled (ErrLeaseLost): after the lease
// expires another worker may take the run. A worker killed outright stops
// renewing: its lease expires and the offer's ack wait runs out, both
// after LeaseTTL, and the offer is delivered again (Delivery 2).
//
// When the handler returns, whatever it returned, the run is marked done,
// the offer acked and the lease deleted. When the worker stops (Work's
// context ends) the handlers' contexts are cancelled (ErrWorkerStopping),
// and once they return their offers are nak'ed, to be delivered again at
// once, and their leases deleted. Cancel puts a record in
// sudocode-cancels; a worker's plain subscription to that bucket's
// subjects for its repositories cancels a running handler at once
// (ErrCancelled), and each renewal looks the record up too, for a
// cancellation sent while the worker was cut off.
//
// # Permissions
//
// WorkerPermissions confines a worker's nkey user to its repositories'
// consumers, acks, leases, claim records, cancellations and run subjects
// (under its own id), its own presence, and replies on its own inbox
// prefix (natsbus.Connect sets it). A worker cannot create or change a
// stream or consumer, pull another repository's offers, watch any run,
// or read or write another worker's presence.
package fleet
