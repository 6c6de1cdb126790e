package natsbus

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// leaderWait bounds AwaitLeader when its context has no deadline: a
// cluster that elects no leader in that long is not coming back soon.
const leaderWait = 2 * time.Minute

// AwaitLeader waits until stream (a KV bucket's is "KV_" + its name) has
// a leader. A replicated stream elects one after it is created: until it
// has, a put or a read of it finds no responder ("no response from
// stream"), and a new cluster's first streams can take seconds. A stream
// of one server has its leader at once.
func AwaitLeader(ctx context.Context, js jetstream.JetStream, stream string) error {
	ctx, cancel := context.WithTimeout(ctx, leaderWait)
	defer cancel()
	var last error
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		actx, acancel := context.WithTimeout(ctx, 2*time.Second)
		s, err := js.Stream(actx, stream)
		if err == nil {
			var info *jetstream.StreamInfo
			if info, err = s.Info(actx); err == nil && (info.Cluster == nil || info.Cluster.Leader != "") {
				acancel()
				return nil
			}
		}
		acancel()
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("natsbus: stream %s has no leader yet (%v): %w", stream, last, ctx.Err())
		case <-time.After(wait):
		}
	}
}
