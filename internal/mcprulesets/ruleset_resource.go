package mcprulesets

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

const uriScheme = "ruleset://"

var resourceTemplate = &mcp.ResourceTemplate{
	URITemplate: uriScheme + "{name}",
	Name:        "ruleset",
	Title:       "Ruleset",
	Description: "AI editor ruleset with metadata and markdown content",
	MIMEType:    "text/markdown",
}

// readRuleset serves ruleset://{name}. A missing ruleset is the JSON-RPC
// error -32603 with the specification's text.
func (h handlers) readRuleset(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, ok := strings.CutPrefix(uri, uriScheme)
	if !ok || name == "" {
		return nil, mcpx.InvalidParams("invalid ruleset URI '" + uri + "': want ruleset://{name}")
	}
	r, err := h.lib.Get(ctx, name)
	if err != nil {
		return nil, mcpx.ProtocolError("failed to retrieve ruleset", err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI:      uri,
		MIMEType: "text/markdown",
		Text:     rulesets.FormatDocument(r),
	}}}, nil
}
