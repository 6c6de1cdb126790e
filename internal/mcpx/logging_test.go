package mcpx

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Logging as SEP-2577 leaves it: a tool's events go to the server's log
// always, and as MCP log notifications only to a client that asked:
// with logging/setLevel on a session (the handshake revisions, still
// served), or with _meta["io.modelcontextprotocol/logLevel"] on the
// request itself (2026-07-28). A client that did not ask gets none.
func TestLogNotificationsOnlyWhenAsked(t *testing.T) {
	s := teamServer()
	s.AddTool(&mcp.Tool{Name: "event", Description: "Logs an event", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			Notify(ctx, quietLogger(), req.Session, "team", "something happened")
			return Text("ok"), nil
		})
	base := startServer(t, s, Transport{})
	for _, c := range []struct {
		name, revision string
		setLevel       bool           // logging/setLevel info first
		meta           map[string]any // the call's _meta
		want           int
	}{
		{"2026-07-28, no log level", ModernProtocol, false, nil, 0},
		{"2026-07-28, logLevel info", ModernProtocol, false, map[string]any{"io.modelcontextprotocol/logLevel": "info"}, 1},
		{"2026-07-28, logLevel error", ModernProtocol, false, map[string]any{"io.modelcontextprotocol/logLevel": "error"}, 0},
		{"2025-11-25, no setLevel", handshakeRevision, false, nil, 0},
		{"2025-11-25, setLevel info", handshakeRevision, true, nil, 1},
	} {
		var mu sync.Mutex
		got := 0
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "log-test", Version: "0"}, &mcp.ClientOptions{
			//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
			LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) { mu.Lock(); got++; mu.Unlock() },
		}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + Path, DisableStandaloneSSE: true},
			&mcp.ClientSessionOptions{ProtocolVersion: c.revision})
		if err != nil {
			t.Fatal(err)
		}
		if c.setLevel {
			//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
			if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "event", Arguments: map[string]any{}, Meta: c.meta}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cs.Close()
		cancel()
		mu.Lock()
		if got != c.want {
			t.Errorf("%s: %d log notifications, want %d", c.name, got, c.want)
		}
		mu.Unlock()
	}
}
