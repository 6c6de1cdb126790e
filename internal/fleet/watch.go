package fleet

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Headers of a run message.
const (
	hdrKind     = "Sudocode-Kind"
	hdrDelivery = "Sudocode-Delivery"
)

// RunMsg is one message a worker sent about a run.
type RunMsg struct {
	Seq      uint64 // its sequence in the run stream: Watch from it to resume after it
	Kind     string
	Worker   string // the sender, from the subject its permissions confine it to
	Delivery int    // the claim's delivery it was sent under
	Body     []byte
	Time     time.Time // when the stream stored it
}

// Watch sends every message workers sent for a run after stream sequence
// after (0: from the start), in order, then new ones as they come; the
// channel closes when ctx ends, or when the watch fails for good (the
// connection closed): watch again after the last Seq received. Messages
// are kept a week, so a coordinator that was down reads what it missed.
func (f *Fleet) Watch(ctx context.Context, repo, task string, run int, after uint64) (<-chan RunMsg, error) {
	if err := checkRun(repo, task, run); err != nil {
		return nil, err
	}
	cfg := jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{"sudocode.run." + runKey(repo, task, run) + ".*"},
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	}
	if after > 0 {
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = after + 1
	}
	cons, err := f.js.OrderedConsumer(ctx, runStream, cfg)
	if err != nil {
		return nil, fmt.Errorf("fleet: watch %s/%s run %d: %w", repo, task, run, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return nil, fmt.Errorf("fleet: watch %s/%s run %d: %w", repo, task, run, err)
	}
	ch := make(chan RunMsg)
	stop := context.AfterFunc(ctx, it.Stop)
	go func() {
		defer close(ch)
		defer stop()
		defer it.Stop()
		for {
			m, err := it.Next()
			if err != nil {
				return // stopped: ctx ended
			}
			select {
			case ch <- runMsg(m):
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}

func runMsg(m jetstream.Msg) RunMsg {
	rm := RunMsg{Kind: m.Headers().Get(hdrKind), Worker: workerOfSubject(m.Subject()), Body: m.Data()}
	rm.Delivery, _ = strconv.Atoi(m.Headers().Get(hdrDelivery))
	if meta, err := m.Metadata(); err == nil {
		rm.Seq, rm.Time = meta.Sequence.Stream, meta.Timestamp
	}
	return rm
}

// send publishes one run message as worker.
func (f *Fleet) send(ctx context.Context, o Offer, worker string, delivery int, kind string, body []byte) error {
	if kind == "" {
		return fmt.Errorf("fleet: send on %s/%s run %d: empty kind", o.Repo, o.Task, o.Run)
	}
	m := &nats.Msg{Subject: runSubject(o.Repo, o.Task, o.Run, worker), Header: nats.Header{}, Data: body}
	m.Header.Set(hdrKind, kind)
	m.Header.Set(hdrDelivery, strconv.Itoa(delivery))
	if _, err := f.js.PublishMsg(ctx, m); err != nil {
		return fmt.Errorf("fleet: send %s on %s/%s run %d: %w", kind, o.Repo, o.Task, o.Run, err)
	}
	return nil
}
