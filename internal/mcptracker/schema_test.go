package mcptracker_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcptracker"
	"github.com/sudocode/sudocode/internal/mcpx/schematest"
)

// Every tool enforces its input schema: a call without a required
// parameter, or with one of the wrong type, is refused before the tool
// runs (a refused create_issue creates nothing).
func TestSchemaRefusesBadArguments(t *testing.T) {
	f := initialised(t, mcptracker.Options{})
	schematest.RefusesBadArguments(t, f.cs)
	if text := f.call("list_issues", map[string]any{}).Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `"issues":[]`) {
		t.Errorf("refused calls created issues: %s", text)
	}
}
