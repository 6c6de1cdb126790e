package mcpx

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Lists that never change while the server runs may be kept an hour;
// resources change at any time and are stale at once. Behind tokens every
// hint is private.
func TestCachingHints(t *testing.T) {
	a, err := NewAuth("", writeTokenFile(t, "", "alice "+aliceToken+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, token, scope string
		tr                 Transport
	}{
		{"without tokens", "", "public", Transport{}},
		{"behind tokens", aliceToken, "private", Transport{Auth: a}},
	} {
		s := teamServer()
		s.AddResource(&mcp.Resource{URI: "test://a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://a", Text: "a"}}}, nil
		})
		base := startServer(t, s, c.tr)
		for _, revision := range []string{ModernProtocol, handshakeRevision} {
			cs, err := connectRevision(t, base+Path, c.token, revision)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			resources, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://a"})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range []struct {
				what string
				got  mcp.Cacheable
				ttl  int
			}{{"tools/list", tools.Cacheable, FixedTTLMillis}, {"resources/list", resources.Cacheable, 0}, {"resources/read", read.Cacheable, 0}} {
				if h.got.TTLMs != h.ttl || h.got.CacheScope != c.scope {
					t.Errorf("%s, %s: %s hints %+v, want ttlMs %d, cacheScope %s", c.name, revision, h.what, h.got, h.ttl, c.scope)
				}
			}
		}
	}
}

// A failed read keeps its error (and the server stays up).
func TestCachingHintsLeaveErrorsAlone(t *testing.T) {
	s := teamServer()
	s.AddResource(&mcp.Resource{URI: "test://gone", Name: "gone"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, mcp.ResourceNotFoundError("test://gone")
	})
	base := startServer(t, s, Transport{})
	cs, err := connectRevision(t, base+Path, "", handshakeRevision)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://gone"}); err == nil {
			t.Fatal("reading a resource that fails succeeded")
		}
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("the server is down after a failed read: %v", err)
	}
}
