package rulefiles_test

import (
	"context"
	"os"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
	"github.com/sudocode/sudocode/internal/rulesets/valkeystore"
	"github.com/sudocode/sudocode/internal/valkeytest"
)

func TestMain(m *testing.M) { os.Exit(valkeytest.Main(m)) }

// forEachStore runs fn on a library over each store: the embedded one and
// a real Valkey.
func forEachStore(t *testing.T, fn func(t *testing.T, lib rulesets.Library)) {
	for _, s := range []struct {
		name string
		open func(t *testing.T) rulesets.Store
	}{
		{"embedded", func(t *testing.T) rulesets.Store {
			s, err := sqlitestore.Open(context.Background(), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
		{"valkey", func(t *testing.T) rulesets.Store {
			s, err := valkeystore.Open(context.Background(), valkeystore.Config{Addr: valkeytest.Shared(t).Addr})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
	} {
		t.Run(s.name, func(t *testing.T) {
			store := s.open(t)
			t.Cleanup(func() { store.Close() })
			fn(t, rulesets.Library{Store: store, Actor: "alice"})
		})
	}
}
