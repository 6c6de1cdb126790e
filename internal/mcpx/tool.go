// Package mcpx is the MCP plumbing every server shares: tool registration
// with strict argument decoding, error mapping, and the stdio and Streamable
// HTTP transports with their hardening.
package mcpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// NewTool binds a typed handler to a definition. The input schema is derived
// from In when the definition has none. Arguments are decoded strictly
// (unknown or mistyped parameters are a -32602 error naming the parameter),
// so the handler sees only well-formed input and words its own errors.
func NewTool[In any](def *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, error)) Tool {
	if def.InputSchema == nil {
		s, err := jsonschema.For[In](nil)
		if err != nil {
			panic(fmt.Sprintf("tool %s: %v", def.Name, err))
		}
		requiredNotNull(s)
		def.InputSchema = s
	}
	return Tool{Def: def, Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if err := DecodeArgs(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return h(ctx, req, in)
	}}
}

// DecodeArgs decodes tool arguments into v, refusing what v does not
// declare. Its errors are JSON-RPC invalid-params errors.
func DecodeArgs(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return InvalidParams("arguments must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, err = dec.Token(); err != io.EOF {
			return InvalidParams("arguments must be a single JSON object")
		}
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		return InvalidParams(fmt.Sprintf("invalid parameter '%s': expected %s, got %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return InvalidParams(fmt.Sprintf("unknown parameter '%s'", field))
	default:
		return InvalidParams("malformed arguments: " + err.Error())
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice", "array":
		return "array"
	case "struct", "map":
		return "object"
	case "bool":
		return "boolean"
	case "string":
		return "string"
	default:
		return "number"
	}
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

// Text is a successful tool result holding one text.
func Text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// ToolError is a tool result with isError set, whose text is prefix, ": ",
// and the error's text.
func ToolError(prefix string, err error) *mcp.CallToolResult {
	r := Text(prefix + ": " + err.Error())
	r.IsError = true
	return r
}

// Schema derives a tool's input schema from In and sets the given
// defaults and enumerations on its properties, so that a model sees them.
func Schema[In any](defaults map[string]any, enums map[string][]string) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err)
	}
	requiredNotNull(s)
	for name, v := range defaults {
		p := s.Properties[name]
		if p == nil {
			panic("schema default for unknown property " + name)
		}
		raw, _ := json.Marshal(v)
		p.Default = raw
	}
	for name, values := range enums {
		p := s.Properties[name]
		if p == nil {
			panic("schema enum for unknown property " + name)
		}
		target := p
		if p.Items != nil {
			target = p.Items
		}
		for _, v := range values {
			target.Enum = append(target.Enum, v)
		}
	}
	return s
}

// requiredNotNull drops "null" from the types of s's required properties:
// a Go slice or pointer derives as nullable, but a required parameter must
// be given a value (the handler refuses null as missing).
func requiredNotNull(s *jsonschema.Schema) {
	for _, name := range s.Required {
		p := s.Properties[name]
		if p == nil || len(p.Types) == 0 {
			continue
		}
		types := slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" })
		if len(types) == 1 {
			p.Type, p.Types = types[0], nil
		} else {
			p.Types = types
		}
	}
}

// JSON is a successful tool result holding v: its JSON as the text (what
// the CLI's --json prints) and as structured content. A value that is not
// a JSON object (a list) is structured as {"results": v}, since structured
// content must be an object.
func JSON(v any) (*mcp.CallToolResult, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, InternalError("encode result: " + err.Error())
	}
	text := bytes.TrimRight(b.Bytes(), "\n")
	var structured any = json.RawMessage(text)
	if len(text) == 0 || text[0] != '{' {
		structured = map[string]json.RawMessage{"results": json.RawMessage(text)}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: structured}, nil
}

// FaultResult is a tool error for err: its message and hint as text, and
// its fault.Envelope as structured content.
func FaultResult(err error) *mcp.CallToolResult {
	e := fault.EnvelopeOf(err)
	text := e.Error.Message
	if e.Error.Hint != nil {
		text += "\nHint: " + *e.Error.Hint
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: e,
		IsError:           true,
	}
}
