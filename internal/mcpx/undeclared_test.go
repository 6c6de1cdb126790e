package mcpx

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server without prompts or resources does not answer their methods
// (the SDK would answer empty lists, which a 2026-07-28 client takes for
// an undeclared capability); one with them does. Clients of both kinds.
func TestUndeclaredCapabilitiesAreMethodsNotFound(t *testing.T) {
	withPrompt := teamServer()
	withPrompt.AddPrompt(&mcp.Prompt{Name: "hello"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	for _, c := range []struct {
		name    string
		server  *mcp.Server
		prompts bool
	}{{"tools only", teamServer(), false}, {"with a prompt", withPrompt, true}} {
		base := startServer(t, c.server, Transport{Name: "team"})
		for _, revision := range []string{ModernProtocol, handshakeRevision} {
			cs, err := connectRevision(t, base+Path, "", revision)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cs.ListPrompts(context.Background(), nil)
			if c.prompts != (err == nil) {
				t.Errorf("%s, %s: prompts/list: %v", c.name, revision, err)
			}
			_, err = cs.ListResources(context.Background(), nil)
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound {
				t.Errorf("%s, %s: resources/list: %v, want -32601", c.name, revision, err)
			}
		}
	}
}
