package mcpx

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/cursor"
	"github.com/sudocode/sudocode/internal/fault"
)

type itemOut struct {
	ID    string   `json:"id" jsonschema:"The item's id"`
	Tags  []string `json:"tags"`
	Note  *string  `json:"note"`
	Extra int      `json:"extra,omitempty"`
}

// callTool runs a tool's handler as the server would, with raw arguments.
func callTool(t *testing.T, tool Tool, args string) (*mcp.CallToolResult, error) {
	t.Helper()
	return tool.Handler(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool.Def.Name, Arguments: json.RawMessage(args)}})
}

// resolved resolves a published output schema, as a client would.
func resolved(t *testing.T, tool Tool) *jsonschema.Resolved {
	t.Helper()
	b, _ := json.Marshal(tool.Def.OutputSchema)
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("output schema of %s: %v", tool.Def.Name, err)
	}
	return r
}

// validStructured checks res's structured content against the tool's
// published output schema.
func validStructured(t *testing.T, tool Tool, res *mcp.CallToolResult) error {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return resolved(t, tool).Validate(v)
}

// TestNewToolPublishesItsOutput: the output schema is derived from the
// handler's result type, and the result's JSON is both the text and the
// structured content, which the schema accepts.
func TestNewToolPublishesItsOutput(t *testing.T) {
	tool := NewTool(Faults, &mcp.Tool{Name: "item"}, func(context.Context, *mcp.CallToolRequest, struct{}) (itemOut, error) {
		return itemOut{ID: "a-1", Tags: []string{"x"}}, nil
	})
	res, err := callTool(t, tool, `{}`)
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	want := `{"id":"a-1","tags":["x"],"note":null}`
	if text := res.Content[0].(*mcp.TextContent).Text; text != want {
		t.Errorf("text %s, want %s", text, want)
	}
	if err := validStructured(t, tool, res); err != nil {
		t.Errorf("the result does not match its own schema: %v", err)
	}
	b, _ := json.Marshal(tool.Def.OutputSchema)
	if !strings.Contains(string(b), `"The item's id"`) {
		t.Errorf("the field description is not published: %s", b)
	}
	// A field renamed on one side only fails the schema.
	renamed := &mcp.CallToolResult{StructuredContent: map[string]any{"item_id": "a-1", "tags": []string{}, "note": nil}}
	if validStructured(t, tool, renamed) == nil {
		t.Error("a renamed field passed the output schema")
	}
}

// TestNewToolListIsUnderResults: a list result is structured content under
// "results", and its schema says so.
func TestNewToolListIsUnderResults(t *testing.T) {
	tool := NewTool(Faults, &mcp.Tool{Name: "items"}, func(context.Context, *mcp.CallToolRequest, struct{}) ([]itemOut, error) {
		return []itemOut{{ID: "a", Tags: []string{}}}, nil
	})
	res, err := callTool(t, tool, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"results":[{"id":"a","tags":[],"note":null}]}` {
		t.Errorf("structured %s", b)
	}
	if err := validStructured(t, tool, res); err != nil {
		t.Error(err)
	}
}

// TestNewToolPlainErrorIsAToolError: a handler's plain Go error is the
// surface's tool error, never a JSON-RPC fault; a protocol error and an
// invalid cursor stay JSON-RPC invalid-params errors.
func TestNewToolPlainErrorIsAToolError(t *testing.T) {
	var give error
	tool := NewTool(Faults, &mcp.Tool{Name: "item"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*itemOut, error) {
		return nil, give
	})
	give = errors.New("disk full")
	res, err := callTool(t, tool, `{}`)
	if err != nil || !res.IsError {
		t.Fatalf("a plain error: %v %+v", err, res)
	}
	if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"error":{"code":"internal","message":"disk full","hint":null}}` {
		t.Errorf("structured %s", b)
	}
	if err := validStructured(t, tool, res); err != nil {
		t.Errorf("the error envelope is not accepted by the output schema: %v", err)
	}
	give = MissingParam("id", "the item")
	if _, err := callTool(t, tool, `{}`); err == nil || !strings.Contains(err.Error(), "missing required parameter 'id'") {
		t.Errorf("a protocol error: %v", err)
	}
	give = cursor.Invalid("stale")
	if _, err := callTool(t, tool, `{}`); err == nil || invalidParams(t, err) != "invalid cursor: stale" {
		t.Errorf("an invalid cursor: %v", err)
	}
	texts := NewTool(Texts, &mcp.Tool{Name: "text"}, func(context.Context, *mcp.CallToolRequest, struct{}) (itemOut, error) {
		return itemOut{}, Prefixed("failed to get item", fault.New(fault.NotFound, "item 'x' not found").WithHint("list them"))
	})
	res, err = callTool(t, texts, `{}`)
	if err != nil || !res.IsError || res.StructuredContent != nil || res.Content[0].(*mcp.TextContent).Text != "failed to get item: item 'x' not found" {
		t.Errorf("a text surface's error: %v %+v", err, res)
	}
}

// TestNewToolUnknownParameterNamesTheExpected: the -32602 error for an
// unknown parameter lists the ones the tool takes.
func TestNewToolUnknownParameterNamesTheExpected(t *testing.T) {
	type in struct {
		IssueID string `json:"issue_id"`
		Reason  string `json:"reason,omitempty"`
	}
	tool := NewTool(Faults, &mcp.Tool{Name: "close"}, func(context.Context, *mcp.CallToolRequest, in) (itemOut, error) { return itemOut{}, nil })
	_, err := callTool(t, tool, `{"id":"x"}`)
	if msg := invalidParams(t, err); msg != "unknown parameter 'id'; expected: issue_id, reason" {
		t.Errorf("message %q", msg)
	}
}

type customJSON struct{ A string }

func (customJSON) MarshalJSON() ([]byte, error) { return []byte(`"a"`), nil }

type customWithSchema struct{ customJSON }

func (customWithSchema) JSONSchema() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }

// TestCustomJSONNeedsItsSchema: a result type whose JSON is its own must
// state its schema; then that schema is used.
func TestCustomJSONNeedsItsSchema(t *testing.T) {
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a type with its own MarshalJSON and no schema was accepted")
			}
		}()
		NewTool(Faults, &mcp.Tool{Name: "c"}, func(context.Context, *mcp.CallToolRequest, struct{}) (struct{ C customJSON }, error) {
			return struct{ C customJSON }{}, nil
		})
	}()
	tool := NewTool(Faults, &mcp.Tool{Name: "c"}, func(context.Context, *mcp.CallToolRequest, struct{}) (struct {
		C customWithSchema `json:"c"`
	}, error) {
		return struct {
			C customWithSchema `json:"c"`
		}{}, nil
	})
	res, err := callTool(t, tool, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := validStructured(t, tool, res); err != nil {
		t.Error(err)
	}
}
