package fleetrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/natsbus"
)

// grantsBucket holds each worker's repositories (key: its name), written
// by the coordinator from its registry: a worker reads its own at start,
// as its permissions let it read nothing else there.
const grantsBucket = "sudocode-grants"

// grantValue is a worker's entry in grantsBucket.
type grantValue struct {
	Repos []string `json:"repos"`
}

// WorkerUser is the NATS user of grant g: the fleet's worker permissions
// for its repositories, and the reading of its own grant. The embedded
// server admits the registry's; an external one must be configured with
// them by its operator.
func WorkerUser(g Grant) natsbus.User {
	p := fleet.WorkerPermissions(g.Name, g.Repos)
	p.PublishAllow = append(p.PublishAllow,
		"$JS.API.STREAM.INFO.KV_"+grantsBucket,
		"$JS.API.DIRECT.GET.KV_"+grantsBucket+".$KV."+grantsBucket+"."+g.Name)
	return natsbus.User{Name: g.Name, NKey: g.Public, Permissions: &p}
}

// publishGrants makes the grants bucket hold exactly gs.
func publishGrants(ctx context.Context, nc *nats.Conn, gs []Grant, replicas int) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: grantsBucket, History: 1,
		Storage: jetstream.FileStorage, Replicas: max(replicas, 1)})
	if err != nil {
		return fmt.Errorf("fleet: the grants bucket: %w", err)
	}
	if err := natsbus.AwaitLeader(ctx, js, "KV_"+grantsBucket); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, g := range gs {
		keep[g.Name] = true
		b, _ := json.Marshal(grantValue{Repos: g.Repos})
		if _, err := kv.Put(ctx, g.Name, b); err != nil {
			return fmt.Errorf("fleet: grant of %s: %w", g.Name, err)
		}
	}
	keys, err := kv.ListKeys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for k := range keys.Keys() {
		if !keep[k] {
			_ = kv.Delete(ctx, k)
		}
	}
	return nil
}

// ReadGrant returns the repositories worker name may work on, as its
// coordinator granted them.
func ReadGrant(ctx context.Context, nc *nats.Conn, name string) ([]string, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	kv, err := js.KeyValue(ctx, grantsBucket)
	if err != nil {
		return nil, fmt.Errorf("the coordinator has granted no worker anything yet (is its serve --fleet running?): %w", err)
	}
	e, err := kv.Get(ctx, name)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, fmt.Errorf("the coordinator grants worker %s no repository: its credentials were revoked", name)
	}
	if err != nil {
		return nil, err
	}
	var v grantValue
	if err := json.Unmarshal(e.Value(), &v); err != nil {
		return nil, fmt.Errorf("worker %s's grant: %w", name, err)
	}
	return v.Repos, nil
}
