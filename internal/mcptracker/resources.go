package mcptracker

import (
	"context"
	_ "embed"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	//go:embed instructions.md
	instructions string
	//go:embed quickstart.md
	quickstart string
	//go:embed workflow.md
	workflow string
)

func (s *server) addResources(srv *mcp.Server) {
	for _, r := range []struct {
		uri, name, title, desc, text string
	}{
		{"sudocode://quickstart", "quickstart", "Sudocode Quickstart Guide", "Introduction to Sudocode workflow and best practices for agents", quickstart},
		{"sudocode://workflow", "workflow", "Agent Workflow Guide", "Step-by-step workflow patterns for AI agents", workflow},
	} {
		text := r.text
		srv.AddResource(&mcp.Resource{URI: r.uri, Name: r.name, Title: r.title, Description: r.desc, MIMEType: "text/markdown"},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: text}}}, nil
			})
	}
}
