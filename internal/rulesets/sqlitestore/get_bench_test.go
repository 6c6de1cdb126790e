package sqlitestore_test

import (
	"context"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/rulesets"
)

func BenchmarkGet(b *testing.B) {
	s := openB(b)
	ctx := context.Background()
	d, m := "d", "m"
	if _, err := s.Upsert(ctx, rulesets.Patch{Name: "x", Description: &d, Markdown: &m}, time.Now()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Get(ctx, "x"); err != nil {
			b.Fatal(err)
		}
	}
}
