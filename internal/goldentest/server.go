package goldentest

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Listing is what a server offers a client: its tools (with their input
// and output schemas), prompts, resources and resource templates.
type Listing struct {
	Tools             []*mcp.Tool             `json:"tools"`
	Prompts           []*mcp.Prompt           `json:"prompts,omitempty"`
	Resources         []*mcp.Resource         `json:"resources,omitempty"`
	ResourceTemplates []*mcp.ResourceTemplate `json:"resourceTemplates,omitempty"`
}

// Server pins everything cs's server lists to the file at path, and
// returns it. A tool without an output schema fails the test.
func Server(t testing.TB, path string, cs *mcp.ClientSession) Listing {
	t.Helper()
	ctx := context.Background()
	var l Listing
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s publishes no outputSchema", tool.Name)
		}
		l.Tools = append(l.Tools, tool)
	}
	caps := cs.InitializeResult().Capabilities
	if caps.Prompts != nil {
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			l.Prompts = append(l.Prompts, p)
		}
	}
	if caps.Resources != nil {
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			l.Resources = append(l.Resources, r)
		}
		for r, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			l.ResourceTemplates = append(l.ResourceTemplates, r)
		}
	}
	JSON(t, path, l)
	return l
}
