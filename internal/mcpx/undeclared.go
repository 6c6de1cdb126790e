package mcpx

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refuseUndeclared answers -32601 (method not found) to the methods of a
// capability s does not declare: the SDK serves prompts/list and
// resources/list with empty lists even then, and a client of 2026-07-28
// takes a method the server answers as one it supports (server/discover
// must then declare it). The capabilities are read once, as a client
// sees them.
func refuseUndeclared(s *mcp.Server) mcp.Middleware {
	caps, ok := declared(s)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		if !ok {
			return next
		}
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			family, _, _ := strings.Cut(method, "/")
			undeclared := (family == "prompts" && caps.Prompts == nil) ||
				(family == "resources" && caps.Resources == nil) ||
				(family == "completion" && caps.Completions == nil)
			if undeclared {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
					Message: fmt.Sprintf("method not found: %q (this server declares no %s capability)", method, family)}
			}
			return next(ctx, method, req)
		}
	}
}

// declared is what s tells a client it can do, read by connecting one
// in memory; ok is false if that failed (then nothing is refused).
func declared(s *mcp.Server) (caps mcp.ServerCapabilities, ok bool) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return caps, false
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sudocode-capabilities", Version: "0"}, nil).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return caps, false
	}
	defer cs.Close()
	if c := cs.InitializeResult().Capabilities; c != nil {
		return *c, true
	}
	return caps, false
}
