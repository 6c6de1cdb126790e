package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sudocode/sudocode/internal/natsbus"
)

// Options tune a fleet. The coordinator's and the workers' must agree:
// the coordinator's Open sets the buckets' time-to-live from them.
type Options struct {
	LeaseTTL  time.Duration // default 30s: a claimed offer's lease; a worker that stops renewing loses it and the offer is delivered again
	Heartbeat time.Duration // default 5s: presence refresh; presence expires after 3 heartbeats
	Replicas  int           // default 1; 3 in a 3-node cluster
	// PreferFor is the head start a preferred worker gets: for that long
	// after an offer was made, other workers leave an offer that prefers
	// someone else. Default LeaseTTL/6.
	PreferFor time.Duration
}

func (o Options) withDefaults() Options {
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 30 * time.Second
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 5 * time.Second
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.PreferFor <= 0 {
		o.PreferFor = o.LeaseTTL / 6
	}
	return o
}

// Fleet is one side's handle on the streams and buckets: a coordinator's
// (Open) or a worker's (OpenWorker).
type Fleet struct {
	nc *nats.Conn
	js jetstream.JetStream
	o  Options

	workers, leases, claims, cancels jetstream.KeyValue

	mu      sync.Mutex
	ensured map[string]bool // repo/agent whose offer stream and consumer exist
}

// Open creates or binds the run stream and the buckets, for a
// coordinator: it needs the right to create them. It is idempotent, and
// two Opens at once both succeed.
func Open(ctx context.Context, nc *nats.Conn, o Options) (*Fleet, error) {
	f, err := newFleet(nc, o)
	if err != nil {
		return nil, err
	}
	if err := retryCreate(ctx, func() error {
		_, err := f.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name:        runStream,
			Description: "Sudocode: what workers sent about their runs",
			Subjects:    []string{"sudocode.run.>"},
			Retention:   jetstream.LimitsPolicy,
			MaxAge:      runMaxAge,
			Storage:     jetstream.FileStorage,
			Replicas:    f.o.Replicas,
		})
		return err
	}); err != nil {
		return nil, fmt.Errorf("fleet: create stream %s: %w", runStream, err)
	}
	if err := natsbus.AwaitLeader(ctx, f.js, runStream); err != nil {
		return nil, err
	}
	for _, b := range f.buckets() {
		if err := retryCreate(ctx, func() error {
			kv, err := f.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
				Bucket:   b.name,
				TTL:      b.ttl,
				History:  1,
				Storage:  jetstream.FileStorage,
				Replicas: f.o.Replicas,
			})
			*b.kv = kv
			return err
		}); err != nil {
			return nil, fmt.Errorf("fleet: create bucket %s: %w", b.name, err)
		}
		if err := natsbus.AwaitLeader(ctx, f.js, "KV_"+b.name); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// bindBucket binds the bucket name, asking again while its answer does
// not come in time or no server answers yet: a cluster busy electing or
// a machine busy with other work answers late, and a worker must not quit
// for that. It gives up when ctx ends, or on any other error.
func bindBucket(ctx context.Context, js jetstream.JetStream, name string) (jetstream.KeyValue, error) {
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		kv, err := js.KeyValue(ctx, name)
		if err == nil || ctx.Err() != nil ||
			!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, nats.ErrNoResponders) {
			return kv, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(wait):
		}
	}
}

// OpenWorker binds the buckets a worker uses, which the coordinator's
// Open created; it needs only the rights of WorkerPermissions. LeaseTTL
// and Heartbeat come from the buckets' TTLs, the coordinator's: a worker
// that renewed its lease less often than the lease lives would lose it.
func OpenWorker(ctx context.Context, nc *nats.Conn, o Options) (*Fleet, error) {
	f, err := newFleet(nc, o)
	if err != nil {
		return nil, err
	}
	for _, b := range f.buckets() {
		kv, err := bindBucket(ctx, f.js, b.name)
		if err != nil {
			return nil, fmt.Errorf("fleet: bind bucket %s (has the coordinator opened the fleet?): %w", b.name, err)
		}
		*b.kv = kv
	}
	for _, b := range []struct {
		kv  jetstream.KeyValue
		set func(time.Duration)
	}{
		{f.leases, func(ttl time.Duration) { f.o.LeaseTTL = ttl }},
		{f.workers, func(ttl time.Duration) { f.o.Heartbeat = ttl / 3 }},
	} {
		st, err := b.kv.Status(ctx)
		if err != nil {
			return nil, fmt.Errorf("fleet: bucket %s: %w", b.kv.Bucket(), err)
		}
		if st.TTL() > 0 {
			b.set(st.TTL())
		}
	}
	if o.PreferFor <= 0 {
		f.o.PreferFor = f.o.LeaseTTL / 6
	}
	return f, nil
}

func newFleet(nc *nats.Conn, o Options) (*Fleet, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	return &Fleet{nc: nc, js: js, o: o.withDefaults(), ensured: map[string]bool{}}, nil
}

type bucket struct {
	name string
	ttl  time.Duration
	kv   *jetstream.KeyValue
}

func (f *Fleet) buckets() []bucket {
	return []bucket{
		{workersBucket, 3 * f.o.Heartbeat, &f.workers},
		{leasesBucket, f.o.LeaseTTL, &f.leases},
		{claimsBucket, runMaxAge, &f.claims},
		{cancelsBucket, runMaxAge, &f.cancels},
	}
}

// retryCreate runs create again a few times when it fails: two creators
// at once can see "already in use" from the server while the other's
// create is applied, and a cluster can refuse while it elects a leader.
func retryCreate(ctx context.Context, create func() error) error {
	var err error
	for attempt := range 5 {
		if err = create(); err == nil {
			return nil
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrConnectionClosed) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt+1) * 100 * time.Millisecond):
		}
	}
	return err
}
