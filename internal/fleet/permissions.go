package fleet

import "github.com/sudocode/sudocode/internal/natsbus"

// WorkerPermissions is what worker workerID's nkey user may do, for
// repos: bind the buckets; read its repositories' offer consumers, pull
// from them and ack; take, renew and free its repositories' leases and
// claim records, and read their cancellations; publish run messages of
// its repositories under its own id only; write its own presence only;
// receive replies on its own inbox prefix only. It can create, change or
// delete no stream or consumer, read no other repository's offers, runs,
// leases or cancellations, read no run stream (Watch is the
// coordinator's) and read no presence.
func WorkerPermissions(workerID string, repos []string) natsbus.Permissions {
	pub := []string{
		// Binding a bucket reads its stream's configuration.
		"$JS.API.STREAM.INFO.KV_" + workersBucket,
		"$JS.API.STREAM.INFO.KV_" + leasesBucket,
		"$JS.API.STREAM.INFO.KV_" + claimsBucket,
		"$JS.API.STREAM.INFO.KV_" + cancelsBucket,
		"$KV." + workersBucket + "." + workerID,
	}
	sub := []string{natsbus.InboxPrefix(workerID) + ".>"}
	for _, r := range repos {
		stream := offerStream(r)
		pub = append(pub,
			"$JS.API.CONSUMER.INFO."+stream+".*",
			"$JS.API.CONSUMER.MSG.NEXT."+stream+".*",
			// Acks, naks and progress go to the delivered message's reply
			// subject, which names the stream (in the older form first,
			// in the newer after a domain and an account token).
			"$JS.ACK."+stream+".>",
			"$JS.ACK.*.*."+stream+".>",
			"$KV."+leasesBucket+"."+r+".>",
			"$KV."+claimsBucket+"."+r+".>",
			directGet(leasesBucket, r),
			directGet(claimsBucket, r),
			directGet(cancelsBucket, r),
			"sudocode.run."+r+".*.*."+workerID,
		)
		sub = append(sub, "$KV."+cancelsBucket+"."+r+".>")
	}
	return natsbus.Permissions{PublishAllow: pub, SubscribeAllow: sub}
}

// directGet is the API subject that reads the last value of a key of
// bucket under repo.
func directGet(bucket, repo string) string {
	return "$JS.API.DIRECT.GET.KV_" + bucket + ".$KV." + bucket + "." + repo + ".>"
}

// CoordinatorPermissions is what the coordinator's user may do: nil,
// everything. It creates the streams and consumers, so confining it
// would buy little.
func CoordinatorPermissions() *natsbus.Permissions { return nil }
