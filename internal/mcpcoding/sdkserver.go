package mcpcoding

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
)

// supportedVersions are the revisions the server speaks, newest first:
// what server/discover offers.
var supportedVersions = []string{mcpx.ModernProtocol, ProtocolVersion}

// The initialize result's fixed parts (docs/coding-tools.md#initialize).
const (
	serverName   = "coding-tools-mcp"
	serverTitle  = "Coding Tools MCP"
	instructions = "Use these tools only for local coding operations inside the configured workspace."
)

// capabilities are the profile's, listChanged written although false.
var capabilities = map[string]any{"tools": map[string]any{"listChanged": false}, "logging": map[string]any{}}

// newSDKServer is the SDK's server of s's tools, with the controls every
// server shares (mcpx.Install) and the profile's hooks around them.
func (s *Server) newSDKServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: serverName, Title: serverTitle, Version: s.opts.Version}, &mcp.ServerOptions{
		Instructions:              instructions,
		SupportedProtocolVersions: supportedVersions,
		// The capabilities a client reads are the profile's (initResult,
		// discoverResult); logging/setLevel is served whatever the SDK
		// declares.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		Logger:       mcpx.SDKLogger(s.opts.Logger),
	})
	for _, t := range s.tools {
		srv.AddTool(t.def(), s.handler(t))
	}
	// Inside the shared controls, so that a call to an unknown tool is
	// audited and counted as one.
	srv.AddReceivingMiddleware(s.unknownTool)
	t := s.opts.Transport
	t.Name = ServerName
	mcpx.Install(srv, t)
	// Outside them: what they see is the SDK's results; what the client
	// gets is the profile's.
	srv.AddReceivingMiddleware(s.profileResults)
	return srv
}

// unknownTool refuses a call to a tool the server does not have with the
// profile's -32602, whose data names the reason
// (docs/coding-tools.md#results); the SDK's has no data.
func (s *Server) unknownTool(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if c, ok := req.(*mcp.CallToolRequest); ok && c.Params != nil {
			if _, known := s.byName[c.Params.Name]; !known {
				return nil, rpcErr(codeInvalidParams, "Unknown tool: "+c.Params.Name,
					map[string]any{"reason": "unknown_tool", "name": c.Params.Name})
			}
		}
		return next(ctx, method, req)
	}
}

// profileResults gives the SDK's results the profile's shape where the
// SDK's differs (docs/coding-tools.md#initialize, #tools, #results):
//
//   - initialize answers every client of the session alike, where the SDK
//     refuses a second initialize (over HTTP the profile's one session is
//     shared by every client of the process);
//   - false is written in isError and listChanged, which the SDK's result
//     types omit when false;
//   - tools/list lists the tools in the profile's order, where the SDK
//     sorts them by name.
func (s *Server) profileResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "initialize" && req.GetSession().(*mcp.ServerSession).InitializeParams() != nil {
			return s.initResult(), nil
		}
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.InitializeResult:
			return s.initResult(), nil
		case *mcp.CallToolResult:
			return s.encodedResult(req, toolResult{r})
		case *mcp.DiscoverResult:
			return discoverResult{r}, nil
		case *mcp.ListToolsResult:
			slices.SortStableFunc(r.Tools, func(a, b *mcp.Tool) int {
				return s.order(a.Name) - s.order(b.Name)
			})
		}
		return res, nil
	}
}

// order is the place of the tool named name in the profile's list.
func (s *Server) order(name string) int {
	return slices.IndexFunc(s.tools, func(t tool) bool { return t.Name == name })
}

// initResult is the profile's initialize result, the same on every call.
func (s *Server) initResult() mcp.Result {
	return initResult{&mcp.InitializeResult{}, s.opts.Version}
}

type initResult struct {
	*mcp.InitializeResult
	version string
}

func (r initResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    capabilities,
		"serverInfo":      map[string]any{"name": serverName, "title": serverTitle, "version": r.version},
		"instructions":    instructions,
	})
}

// encodedResult hands the front a tool call's answer encoded, and the SDK
// a stand-in: the SDK's encoding runs encoding/json over a result, which
// checks and compacts a Marshaler's output once more — for a read_file,
// a pass over most of the answer's bytes. The front sends the bytes
// encoded here in place of what the SDK encoded (front.go, call).
func (s *Server) encodedResult(req mcp.Request, r toolResult) (mcp.Result, error) {
	extra := req.GetExtra()
	if extra == nil { // not a request from the front
		return r, nil
	}
	b, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	s.encoded.Store(extra, b)
	return standIn(r), nil
}

// standIn is what the SDK encodes of a result the front sends itself.
type standIn struct{ *mcp.CallToolResult }

func (standIn) MarshalJSON() ([]byte, error) { return []byte("{}"), nil }

// toolResult writes isError when it is false too. It writes the result
// itself: the SDK's encoding would escape the text mirror, and compact the
// structured content, once more each (their bytes are most of a
// read_file's answer); what it adds in its own fields (_meta, resultType)
// is taken from it.
type toolResult struct{ *mcp.CallToolResult }

func (r toolResult) MarshalJSON() ([]byte, error) {
	rest := *r.CallToolResult
	rest.Content, rest.StructuredContent = nil, nil
	b, err := rest.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	if fields["content"], err = contentJSON(r.Content); err != nil {
		return nil, err
	}
	if raw, ok := r.StructuredContent.(json.RawMessage); ok {
		fields["structuredContent"] = raw
	}
	fields["isError"] = json.RawMessage(strconv.FormatBool(r.IsError))
	out := []byte{'{'}
	for i, k := range slices.Sorted(maps.Keys(fields)) {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(append(strconv.AppendQuote(out, k), ':'), fields[k]...)
	}
	return append(out, '}'), nil
}

// contentJSON is a result's content items, the text items' text escaped
// once.
func contentJSON(items []mcp.Content) ([]byte, error) {
	out := []byte{'['}
	for i, c := range items {
		if i > 0 {
			out = append(out, ',')
		}
		var b []byte
		var err error
		if t, ok := c.(*mcp.TextContent); ok && t.Meta == nil && t.Annotations == nil {
			b, err = marshalCompact(t.Text)
			b = append(append([]byte(`{"type":"text","text":`), b...), '}')
		} else {
			b, err = marshalCompact(c)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return append(out, ']'), nil
}

// discoverResult has the profile's capabilities, listChanged written.
type discoverResult struct{ *mcp.DiscoverResult }

func (r discoverResult) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.DiscoverResult)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["capabilities"] = capabilities
	return json.Marshal(m)
}

// callerOf is who makes a call: its token's name, else Transport.Caller.
func (s *Server) callerOf(ctx context.Context) string {
	if c := mcpx.CallerFrom(ctx); c != "" {
		return c
	}
	return s.opts.Transport.Caller
}

// ServerName is the coding server's name in audit lines and metrics.
const ServerName = "coding"
