package valkeystore_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/storetest"
	"github.com/sudocode/sudocode/internal/rulesets/valkeystore"
	"github.com/sudocode/sudocode/internal/valkeytest"
)

func TestMain(m *testing.M) { os.Exit(valkeytest.Main(m)) }

func open(t *testing.T) (*valkeystore.Store, string) {
	t.Helper()
	srv := valkeytest.Shared(t)
	s, err := valkeystore.Open(context.Background(), valkeystore.Config{Addr: srv.Addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, srv.Addr
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) rulesets.Store { s, _ := open(t); return s })
}

func TestTwoClients(t *testing.T) {
	a, addr := open(t)
	b, err := valkeystore.Open(context.Background(), valkeystore.Config{URL: "valkey://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	storetest.RunShared(t, a, b)
}

// The hash is exactly the specification's storage schema, so other tools
// reading ruleset:{name} see what they expect.
func TestStorageSchema(t *testing.T) {
	s, addr := open(t)
	ctx := context.Background()
	desc, md := "Python coding style guidelines for team projects", "# Python Style Guide"
	now := time.Date(2025, 10, 29, 10, 30, 0, 0, time.UTC)
	if _, err := s.Upsert(ctx, rulesets.Patch{Name: "python_style_guide", Description: &desc, Markdown: &md,
		Tags: []string{"python", "style", "pep8"}, SetTags: true}, now); err != nil {
		t.Fatal(err)
	}
	c, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{addr}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h, err := c.Do(ctx, c.B().Hgetall().Key("ruleset:python_style_guide").Build()).AsStrMap()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"description":   desc,
		"tags":          `["python","style","pep8"]`,
		"markdown":      md,
		"created_at":    "2025-10-29T10:30:00Z",
		"last_modified": "2025-10-29T10:30:00Z",
	}
	if len(h) != len(want) {
		t.Fatalf("hash = %v", h)
	}
	for k, v := range want {
		if h[k] != v {
			t.Errorf("field %s = %q, want %q", k, h[k], v)
		}
	}
}

// Keys under the prefix that are not rulesets (other types, names that
// break the naming rule) are skipped by lists, not fatal to them.
func TestForeignKeysIgnored(t *testing.T) {
	s, addr := open(t)
	ctx := context.Background()
	c, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{addr}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Do(ctx, c.B().Set().Key("ruleset:a_string").Value("x").Build())
	c.Do(ctx, c.B().Set().Key("ruleset:Bad-Name").Value("x").Build())
	d, m := "d", "m"
	if _, err := s.Upsert(ctx, rulesets.Patch{Name: "real", Description: &d, Markdown: &m}, time.Now()); err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(ctx, "*")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "real" {
		t.Fatalf("Search(*) = %+v", got)
	}
}

func TestUnreachable(t *testing.T) {
	_, err := valkeystore.Open(context.Background(), valkeystore.Config{Addr: "127.0.0.1:1"})
	if err == nil || !fault.Is(err, fault.Unavailable) {
		t.Fatalf("err = %v", err)
	}
	if got := err.Error(); len(got) < 30 || got[:29] != "failed to connect to Valkey: " {
		t.Fatalf("message %q", got)
	}
}

func TestEscapeGlob(t *testing.T) {
	for in, want := range map[string]string{"*py?*": "*py?*", "[a]": `\[a\]`, `a\b`: `a\\b`} {
		if got := valkeystore.EscapeGlob(in); got != want {
			t.Errorf("EscapeGlob(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCluster runs the contract on a real three-primary cluster: keys land
// on different nodes, and search scans every one of them.
func TestCluster(t *testing.T) {
	valkeytest.Shared(t) // skips or fails like every Valkey test when no server binary exists
	cluster, err := valkeytest.StartCluster(3)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Stop()
	storetest.Run(t, func(t *testing.T) rulesets.Store {
		if err := cluster.Flush(); err != nil {
			t.Fatal(err)
		}
		s, err := valkeystore.Open(context.Background(), valkeystore.Config{Addr: cluster.Addrs()[0]})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// A scope is further hash fields beside the specification's five, present
// only while set.
func TestScopeFields(t *testing.T) {
	s, addr := open(t)
	ctx := context.Background()
	d, m, yes := "d", "m", true
	if _, err := s.Upsert(ctx, rulesets.Patch{Name: "scoped", Description: &d, Markdown: &m, Globs: []string{"pkg/**"}, SetGlobs: true, Always: &yes}, time.Now()); err != nil {
		t.Fatal(err)
	}
	c, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{addr}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h, err := c.Do(ctx, c.B().Hgetall().Key("ruleset:scoped").Build()).AsStrMap()
	if err != nil || h["globs"] != `["pkg/**"]` || h["always"] != "true" || len(h) != 7 {
		t.Fatalf("hash = %v, %v", h, err)
	}
	no := false
	if _, err := s.Upsert(ctx, rulesets.Patch{Name: "scoped", Globs: []string{}, SetGlobs: true, Always: &no}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if h, _ := c.Do(ctx, c.B().Hgetall().Key("ruleset:scoped").Build()).AsStrMap(); len(h) != 5 {
		t.Fatalf("hash after clearing the scope = %v", h)
	}
}
