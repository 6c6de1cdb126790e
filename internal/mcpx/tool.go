// Package mcpx is the MCP plumbing every server shares: tool registration
// with strict argument decoding, typed results with their output schemas,
// error mapping, and the stdio and Streamable HTTP transports with their
// hardening.
package mcpx

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/cursor"
	"github.com/sudocode/sudocode/internal/fault"
)

// Tool is a tool definition bound to its handler: a value a server lists in
// its registration order.
type Tool struct {
	Def     *mcp.Tool
	Handler mcp.ToolHandler
}

// AddTools registers tools in order.
func AddTools(s *mcp.Server, tools ...Tool) {
	for _, t := range tools {
		s.AddTool(t.Def, t.Handler)
	}
}

// ToolFunc is a typed tool handler: it gets well-formed input and returns
// the tool's result, or an error.
type ToolFunc[In, Out any] func(context.Context, *mcp.CallToolRequest, In) (Out, error)

// Texter is a result whose text content is its own (a specification's
// wording) rather than its JSON. Its JSON is still the structured content.
type Texter interface{ ToolText() string }

// Failer is a result that reports a failure in the tool's own output shape
// (a task that failed, with the task): it is sent with isError set.
type Failer interface{ ToolFailed() bool }

// NewTool binds a typed handler to a definition. The input schema is derived
// from In when the definition has none, and the output schema from Out
// (with the surface's error shape as an alternative), so every tool
// publishes both. Every call's arguments are validated against the input
// schema before the handler runs (ArgsSchema), then decoded strictly:
// unknown, missing or mistyped parameters are a -32602 error naming the
// parameter (and, for an unknown one, the expected ones).
//
// The handler's result is sent as structured content (its JSON, under
// "results" when that is not an object) and as text (its JSON, or its
// ToolText). Its error is a JSON-RPC error only when it is one
// (*jsonrpc.Error: the caller's malformed request, or an invalid cursor);
// every other error is the surface's tool error, never a protocol fault.
func NewTool[In, Out any](sf Surface, def *mcp.Tool, h ToolFunc[In, Out]) Tool {
	if def.InputSchema == nil {
		def.InputSchema = Schema[In](nil, nil)
	}
	if def.OutputSchema == nil {
		def.OutputSchema = outputSchema[Out](sf)
	}
	args := NewArgsSchema(inputSchemaOf(def), reflect.TypeFor[In]())
	args.EmptyIsMissing = true
	return Tool{Def: def, Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := args.Check(req.Params.Arguments); err != nil {
			return failed(sf, err)
		}
		var in In
		if err := DecodeArgs(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return failed(sf, err)
		}
		res, err := Result(out)
		if err != nil {
			return failed(sf, err)
		}
		return res, nil
	}}
}

// failed maps a handler's error: a protocol error as it is, an invalid
// cursor as the caller's malformed argument, anything else as the
// surface's tool error.
func failed(sf Surface, err error) (*mcp.CallToolResult, error) {
	if werr, ok := err.(*jsonrpc.Error); ok {
		return nil, werr
	}
	if cursor.IsInvalid(err) {
		return nil, InvalidParams(err.Error())
	}
	return sf.Fail(err), nil
}

// Result is the tool result of v: its JSON as structured content (under
// "results" when it is not an object, since structured content must be
// one), and as text unless v is a Texter. A Failer that failed is an error.
func Result(v any) (*mcp.CallToolResult, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fault.Wrap(fault.Internal, err, "encode result")
	}
	raw := bytes.TrimRight(b.Bytes(), "\n")
	text := string(raw)
	var structured any = json.RawMessage(raw)
	if raw[0] != '{' {
		structured = map[string]json.RawMessage{"results": json.RawMessage(raw)}
	}
	if t, ok := v.(Texter); ok {
		text = t.ToolText()
	}
	r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}
	if f, ok := v.(Failer); ok && f.ToolFailed() {
		r.IsError = true
	}
	return r, nil
}

// Text is a successful tool result holding one text.
func Text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// InvalidParams is a JSON-RPC -32602 error.
func InvalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// MissingParam is the error for an absent required parameter.
func MissingParam(name, details string) error {
	return InvalidParams(fmt.Sprintf("missing required parameter '%s': %s", name, details))
}

// InternalError is a JSON-RPC -32603 error.
func InternalError(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
}

// ProtocolError maps a failure to a JSON-RPC error for places that have no
// tool result to carry it (resources): invalid input is -32602, anything
// else -32603. The message is prefix, ": ", and the error's text.
func ProtocolError(prefix string, err error) error {
	msg := prefix + ": " + err.Error()
	if fault.CodeOf(err) == fault.Invalid {
		return InvalidParams(msg)
	}
	return InternalError(msg)
}
