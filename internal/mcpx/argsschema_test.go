package mcpx

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type validatedIn struct {
	ID     string   `json:"id" jsonschema:"The item's id" missing:"the id of the item to change"`
	Tags   []string `json:"tags,omitempty"`
	Limit  *int     `json:"limit,omitempty"`
	Status string   `json:"status,omitempty"`
	Note   string   `json:"note,omitempty"`
	Items  []struct {
		Title string `json:"title" jsonschema:"A title"`
	} `json:"items,omitempty"`
}

// TestArgumentsAreValidatedBeforeTheHandler: the input schema refuses a
// call before its handler runs — a call of the wrong shape as a -32602
// naming the parameter, a value outside an enumeration as the surface's
// tool error naming the values allowed.
func TestArgumentsAreValidatedBeforeTheHandler(t *testing.T) {
	runs := 0
	lo, hi := 1.0, 10.0
	s := Schema[validatedIn](map[string]any{"limit": 5}, map[string][]string{"status": {"open", "closed"}})
	s.Properties["limit"].Minimum, s.Properties["limit"].Maximum = &lo, &hi
	one := 1
	s.Properties["note"].MinLength = &one
	tool := NewTool(Faults, &mcp.Tool{Name: "change", InputSchema: s}, func(context.Context, *mcp.CallToolRequest, validatedIn) (itemOut, error) {
		runs++
		return itemOut{Tags: []string{}}, nil
	})
	for _, c := range []struct{ args, want string }{
		{`{}`, "missing required parameter 'id': the id of the item to change"},
		{`{"id":null}`, "missing required parameter 'id': the id of the item to change"},
		{`{"id":""}`, "missing required parameter 'id': the id of the item to change"},
		{`{"id":7}`, "invalid parameter 'id': expected string, got number"},
		{`{"id":"a","tags":"x"}`, "invalid parameter 'tags': expected array, got string"},
		{`{"id":"a","tags":[1]}`, "invalid parameter 'tags': expected string, got number"},
		{`{"id":"a","limit":2.5}`, "invalid parameter 'limit': expected number, got number 2.5"},
		{`{"id":"a","limit":11}`, "invalid parameter 'limit': must be between 1 and 10 (default 5)"},
		{`{"id":"a","note":""}`, "invalid parameter 'note': must not be empty"},
		{`{"id":"a","items":[{}]}`, "missing required parameter 'items[0].title': A title"},
		{`{"id":"a","items":[{"title":"t","x":1}]}`, "unknown parameter 'x'"},
		{`{"id":"a","bogus":1}`, "unknown parameter 'bogus'; expected: id, tags, limit, status, note, items"},
		{`[]`, "arguments must be a JSON object"},
	} {
		_, err := callTool(t, tool, c.args)
		if msg := invalidParams(t, err); msg != c.want {
			t.Errorf("%s: %q, want %q", c.args, msg, c.want)
		}
	}
	res, err := callTool(t, tool, `{"id":"a","status":"done"}`)
	if err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != `invalid status "done": must be one of open, closed` {
		t.Errorf("a value outside the enumeration: %v %+v", err, res)
	}
	if runs != 0 {
		t.Fatalf("the handler ran %d times for refused calls", runs)
	}
	if res, err := callTool(t, tool, `{"id":"a","status":"open","limit":3,"items":[{"title":"t"}]}`); err != nil || res.IsError {
		t.Fatalf("a valid call: %v %+v", err, res)
	}
	if runs != 1 {
		t.Errorf("the handler ran %d times for one valid call", runs)
	}
}

// BenchmarkArgumentsCheck is what validating a call's arguments against
// the input schema costs, beside the strict decoding every call already
// had: a small argument object of the tracker's size.
func BenchmarkArgumentsCheck(b *testing.B) {
	s := Schema[validatedIn](map[string]any{"limit": 5}, map[string][]string{"status": {"open", "closed"}})
	a := NewArgsSchema(s, reflect.TypeFor[validatedIn]())
	a.EmptyIsMissing = true
	raw := json.RawMessage(`{"id":"sudocode-a1b2","tags":["x","y"],"limit":3,"status":"open","items":[{"title":"t"}]}`)
	b.Run("schema", func(b *testing.B) {
		for b.Loop() {
			if err := a.Check(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			var in validatedIn
			if err := DecodeArgs(raw, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
