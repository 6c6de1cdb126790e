package mcpcoding

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A request whose caller goes away (an HTTP client that hung up) is
// cancelled in the SDK: the tool's context ends.
func TestPipeCancelsWhenTheCallerGoesAway(t *testing.T) {
	s := testServer(t, Options{})
	started, ended := make(chan struct{}), make(chan struct{})
	s.byName["waits"] = tool{Name: "waits"}
	s.sdk.AddTool(&mcp.Tool{Name: "waits", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			close(ended)
			return nil, ctx.Err()
		})
	p := s.standalone
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := p.call(ctx, "tools/call", []byte(`{"name":"waits","arguments":{}}`), nil)
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Fatalf("call: %v, want context.Canceled", err)
	}
	<-ended
}
