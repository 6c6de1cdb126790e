package schematest

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RefusesBadArguments checks that every tool cs lists enforces its
// published input schema: for each required parameter, a call that leaves
// it out (every other required one given a value the schema accepts) is a
// JSON-RPC -32602 error naming it; for each parameter, a call that gives it
// a value of the wrong type is too. Such calls never reach a tool, so they
// change nothing.
func RefusesBadArguments(t testing.TB, cs *mcp.ClientSession) {
	t.Helper()
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tool.InputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: input schema: %v", tool.Name, err)
		}
		base := valid(&s).(map[string]any)
		for _, name := range s.Required {
			args := maps.Clone(base)
			delete(args, name)
			refused(t, cs, tool.Name, args, name)
		}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			if typeOf(s.Properties[name]) == "" {
				continue // any value will do
			}
			args := maps.Clone(base)
			args[name] = wrong(s.Properties[name])
			refused(t, cs, tool.Name, args, name)
		}
	}
}

// refused checks that a call is a -32602 error whose message names param.
func refused(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any, param string) {
	t.Helper()
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, param) {
		t.Errorf("%s(%v): %v, want a -32602 error naming %q", tool, args, err, param)
	}
}

// valid is a value s accepts: its first enumerated value, its minimum, or a
// value of its type, with an object's required properties filled in.
func valid(s *jsonschema.Schema) any {
	if len(s.Enum) > 0 && s.Enum[0] != nil {
		return s.Enum[0]
	}
	switch typeOf(s) {
	case "object", "":
		m := map[string]any{}
		for _, name := range s.Required {
			m[name] = valid(s.Properties[name])
		}
		return m
	case "array":
		if s.Items == nil {
			return []any{"x"}
		}
		return []any{valid(s.Items)}
	case "integer", "number":
		if s.Minimum != nil {
			return *s.Minimum
		}
		return 1
	case "boolean":
		return true
	case "string":
		return "x"
	}
	return map[string]any{}
}

// wrong is a value of a type s does not take.
func wrong(s *jsonschema.Schema) any {
	switch typeOf(s) {
	case "string":
		return 42
	case "integer", "number":
		return "three"
	}
	return "not-" + typeOf(s)
}

// typeOf is s's type, the first not null when it has several; "" when it
// has none.
func typeOf(s *jsonschema.Schema) string {
	if s.Type != "" {
		return s.Type
	}
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	return ""
}
