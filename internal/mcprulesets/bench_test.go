package mcprulesets_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/valkey-io/valkey-go"

	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/valkeytest"
)

// benchSize is the library size the performance targets are set for.
const benchSize = 10_000

// Seed fills a store with n rulesets named ruleset_00000…, a tenth of them
// matching *python*.
func seed(b *testing.B, s rulesets.Store, n int) {
	ctx := context.Background()
	md := "# Rules\n\n- Keep functions small.\n- Name things for what they hold.\n"
	now := time.Date(2025, 10, 29, 10, 30, 0, 0, time.UTC)
	for i := range n {
		name := fmt.Sprintf("ruleset_%05d", i)
		if i%10 == 0 {
			name = fmt.Sprintf("python_%05d", i)
		}
		desc := "Rules number " + name
		if _, err := s.Upsert(ctx, rulesets.Patch{Name: name, Description: &desc, Markdown: &md, Tags: []string{"bench", "go"}, SetTags: true}, now); err != nil {
			b.Fatal(err)
		}
	}
}

func benchCall(b *testing.B, f *fixture, name string, args map[string]any) {
	ctx := context.Background()
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := f.cs.CallTool(ctx, p)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkGetRuleset is get_ruleset through an MCP client (in-memory
// transport) with 10,000 rulesets stored.
func BenchmarkGetRuleset(b *testing.B) {
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			store := s.open(b)
			seed(b, store, benchSize)
			benchCall(b, connect(b, store), "get_ruleset", map[string]any{"name": "ruleset_04242"})
		})
	}
}

// BenchmarkSearchRulesets is search_rulesets for *python* (1,000 matches
// of 10,000) through an MCP client.
func BenchmarkSearchRulesets(b *testing.B) {
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			store := s.open(b)
			seed(b, store, benchSize)
			benchCall(b, connect(b, store), "search_rulesets", map[string]any{"pattern": "*python*"})
		})
	}
}

// BenchmarkPeerValkeyScan is the peer of the Valkey search: the bare SCAN
// MATCH loop over the same 10,000 keys, which no search on Valkey can beat.
func BenchmarkPeerValkeyScan(b *testing.B) {
	store := stores[1].open(b)
	defer store.Close()
	c, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{valkeytest.Shared(b).Addr}, DisableCache: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	seed(b, store, benchSize) // after Shared, which empties the server
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		var cursor uint64
		n := 0
		for {
			e, err := c.Do(ctx, c.B().Scan().Cursor(cursor).Match("ruleset:*python*").Count(1000).Build()).AsScanEntry()
			if err != nil {
				b.Fatal(err)
			}
			n += len(e.Elements)
			if cursor = e.Cursor; cursor == 0 {
				break
			}
		}
		if n != benchSize/10 {
			b.Fatalf("scan found %d", n)
		}
	}
}
