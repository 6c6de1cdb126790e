// Package schematest checks real tool results against the output schemas
// their server publishes, as a client that validates structured content
// does: a field renamed in the result type or in the schema alone fails.
package schematest

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Checker holds a server's published output schemas and which tools had a
// result checked.
type Checker struct {
	mu      sync.Mutex
	schemas map[string]*jsonschema.Resolved
	names   []string
	checked map[string]bool
}

// New lists cs's tools and resolves each one's output schema; a tool
// without one fails the test.
func New(t testing.TB, cs *mcp.ClientSession) *Checker {
	t.Helper()
	c := &Checker{schemas: map[string]*jsonschema.Resolved{}, checked: map[string]bool{}}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		c.names = append(c.names, tool.Name)
		if tool.OutputSchema == nil {
			t.Errorf("%s publishes no outputSchema", tool.Name)
			continue
		}
		b, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		if s.Type != "object" {
			t.Errorf("%s: output schema of type %q, want object", tool.Name, s.Type)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema: %v", tool.Name, err)
		}
		c.schemas[tool.Name] = r
	}
	return c
}

// Check validates res, a result of tool, against the tool's output schema:
// a successful result must carry structured content that the schema
// accepts; an error's structured content, when it has some, too.
func (c *Checker) Check(t testing.TB, tool string, res *mcp.CallToolResult) {
	t.Helper()
	r := c.schemas[tool]
	if r == nil {
		t.Errorf("%s: no output schema to check against", tool)
		return
	}
	if res.StructuredContent == nil {
		if !res.IsError {
			t.Errorf("%s: a result without structured content", tool)
		}
		return
	}
	b, _ := json.Marshal(res.StructuredContent)
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: structured content: %v", tool, err)
	}
	if err := r.Validate(v); err != nil {
		t.Errorf("%s: structured content does not match the published output schema: %v\n%s", tool, err, b)
	}
	if !res.IsError {
		c.mu.Lock()
		c.checked[tool] = true
		c.mu.Unlock()
	}
}

// Call calls a tool and checks its result; a protocol error fails the test.
func (c *Checker) Call(t testing.TB, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	c.Check(t, tool, res)
	return res
}

// Unchecked are the tools no successful result of which was checked.
func (c *Checker) Unchecked() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(c.names), func(n string) bool { return c.checked[n] })
}
