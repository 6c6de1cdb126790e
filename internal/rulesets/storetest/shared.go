package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// RunShared checks two stores over the same data, as two server processes
// see it: writes through both at once all land, and each sees them all.
func RunShared(t *testing.T, a, b rulesets.Store) {
	ctx := context.Background()
	const writers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*2)
	for w := range writers {
		s := a
		if w%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := s.Upsert(ctx, full(fmt.Sprintf("w%d_r%d", w, i), "d", "m"), t0); err != nil {
					errs <- err
				}
				if _, err := s.Upsert(ctx, full("shared_name", fmt.Sprintf("d%d", w), "m"), t0); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	na, err := a.Names(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := b.Names(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(na) != writers*each+1 || !slices.Equal(na, nb) {
		t.Fatalf("store a sees %d names, b %d; want %d each, equal", len(na), len(nb), writers*each+1)
	}
}
