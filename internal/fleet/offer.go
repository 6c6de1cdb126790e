package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sudocode/sudocode/internal/natsbus"
)

// Offer is one run of a task, for a worker to claim.
type Offer struct {
	Repo, Task string
	Run        int      // the task's run number (1 first, +1 per follow-up or retry)
	Agent      string   // which agent CLI the run needs
	Labels     []string `json:",omitempty"` // labels the worker must have (e.g. "gpu", "os=linux")
	Prefer     string   `json:",omitempty"` // a worker id that should get it first when alive (holds the worktree)
	Body       []byte   `json:",omitempty"` // opaque, the orchestrator's
}

func (o Offer) check() error {
	if err := checkRun(o.Repo, o.Task, o.Run); err != nil {
		return err
	}
	if err := checkAgent(o.Agent); err != nil {
		return err
	}
	for _, l := range o.Labels {
		if l == "" {
			return errors.New("fleet: an empty label")
		}
	}
	if o.Prefer != "" {
		return checkWorkerID(o.Prefer)
	}
	return nil
}

// Offer puts o on its repository's work queue. Offering the same
// Repo/Task/Run again within a day is a no-op (the stream deduplicates on
// it), so a coordinator may offer again after a restart without knowing
// whether its first offer arrived. A Prefer naming a worker that is not
// alive now is dropped: nobody would wait for a worker that is gone.
func (f *Fleet) Offer(ctx context.Context, o Offer) error {
	if err := o.check(); err != nil {
		return err
	}
	if err := f.ensureOffers(ctx, o.Repo, o.Agent); err != nil {
		return err
	}
	if o.Prefer != "" {
		live, err := f.alive(ctx, o.Prefer)
		if err != nil {
			return err
		}
		if !live {
			o.Prefer = ""
		}
	}
	data, err := json.Marshal(o)
	if err != nil {
		return err
	}
	msgID := o.Task + "." + strconv.Itoa(o.Run)
	if _, err := f.js.PublishMsg(ctx, &nats.Msg{Subject: offerSubject(o.Repo, o.Agent), Data: data}, jetstream.WithMsgID(msgID)); err != nil {
		return fmt.Errorf("fleet: offer %s/%s run %d: %w", o.Repo, o.Task, o.Run, err)
	}
	return nil
}

// ensureOffers creates repo's offer stream and agent's consumer on it
// once per Fleet. The coordinator creates them, not the workers, so a
// worker needs no right to configure what it reads.
func (f *Fleet) ensureOffers(ctx context.Context, repo, agent string) error {
	key := repo + "/" + agent
	f.mu.Lock()
	done := f.ensured[key]
	f.mu.Unlock()
	if done {
		return nil
	}
	stream := offerStream(repo)
	if err := retryCreate(ctx, func() error {
		_, err := f.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name:        stream,
			Description: "Sudocode: offers of runs of " + repo,
			Subjects:    []string{"sudocode.offer." + repo + ".*"},
			Retention:   jetstream.WorkQueuePolicy,
			Storage:     jetstream.FileStorage,
			Replicas:    f.o.Replicas,
			Duplicates:  dedupWindow,
		})
		return err
	}); err != nil {
		return fmt.Errorf("fleet: create stream %s: %w", stream, err)
	}
	if err := natsbus.AwaitLeader(ctx, f.js, stream); err != nil {
		return err
	}
	if err := retryCreate(ctx, func() error {
		_, err := f.js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{
			Durable:       agent,
			Description:   "Sudocode: " + agent + " workers of " + repo,
			FilterSubject: offerSubject(repo, agent),
			AckPolicy:     jetstream.AckExplicitPolicy,
			// A claim's holder signals progress every LeaseTTL/3; one
			// that stops is taken to be gone after LeaseTTL.
			AckWait:    f.o.LeaseTTL,
			MaxDeliver: -1,
			Replicas:   f.o.Replicas,
		})
		return err
	}); err != nil {
		return fmt.Errorf("fleet: create consumer %s on %s: %w", agent, stream, err)
	}
	f.mu.Lock()
	f.ensured[key] = true
	f.mu.Unlock()
	return nil
}

// Cancel cancels a run: the worker running it sees its handler's context
// cancelled with the cause ErrCancelled, and an offer not claimed yet is
// dropped when a worker claims it. The record is kept a week.
func (f *Fleet) Cancel(ctx context.Context, repo, task string, run int) error {
	if err := checkRun(repo, task, run); err != nil {
		return err
	}
	if _, err := f.cancels.PutString(ctx, runKey(repo, task, run), "cancelled"); err != nil {
		return fmt.Errorf("fleet: cancel %s/%s run %d: %w", repo, task, run, err)
	}
	return nil
}

// cancelled reports whether key's run was cancelled.
func (f *Fleet) cancelled(ctx context.Context, key string) (bool, error) {
	e, err := f.cancels.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return e.Operation() == jetstream.KeyValuePut, nil
}
