package mcpx

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/fault"
)

// Surface is how one server's tools answer a failure: its one mapping of
// a handler's error to a tool error (isError) result.
type Surface struct {
	Fail func(error) *mcp.CallToolResult
	// FailSchema describes the structured content of Fail's results when
	// it is not the tool's own output shape; it is published as an
	// alternative of every output schema, so that a client that validates
	// structured content accepts the errors too. Nil when Fail's results
	// carry none, or carry the tool's own shape.
	FailSchema *jsonschema.Schema
}

// Faults answers with the fault envelope: the message and hint as text,
// {"error": {"code", "message", "hint"}} as structured content.
var Faults = Surface{Fail: FaultResult, FailSchema: envelopeSchema()}

// envelopeSchema is fault.Envelope's schema, its code one of the closed set.
func envelopeSchema() *jsonschema.Schema {
	s := mustSchema[fault.Envelope]()
	code := s.Properties["error"].Properties["code"]
	for _, c := range fault.Codes {
		code.Enum = append(code.Enum, string(c))
	}
	return s
}

// Texts answers with the error's text alone, as a specification that fixes
// the text wants (the caller's error carries the specification's prefix).
var Texts = Surface{Fail: TextError}

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

// TextError is a tool error whose only content is err's text; the hint is
// never part of it.
func TextError(err error) *mcp.CallToolResult {
	r := Text(err.Error())
	r.IsError = true
	return r
}

// Prefixed is err behind a specification's prefix ("failed to delete
// ruleset: …"), keeping its code and hint.
func Prefixed(prefix string, err error) error {
	return &fault.Error{Code: fault.CodeOf(err), Msg: prefix + ": " + err.Error(), Hint: fault.HintOf(err), Err: err}
}
