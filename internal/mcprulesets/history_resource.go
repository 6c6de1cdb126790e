package mcprulesets

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

const historyScheme = "ruleset-history://"

var historyTemplate = &mcp.ResourceTemplate{
	URITemplate: historyScheme + "{name}",
	Name:        "ruleset-history",
	Title:       "Ruleset history",
	Description: "Who changed a ruleset, when and which fields, newest first, each with its version number (the last 100 changes, deletions included)",
	MIMEType:    "application/json",
}

// historyDoc is the JSON of ruleset-history://{name}.
type historyDoc struct {
	Name    string            `json:"name"`
	Changes []rulesets.Change `json:"changes"`
}

// readHistory serves ruleset-history://{name}. A name that has no history
// and is no ruleset is -32603 with the text of get_ruleset's error.
func (h handlers) readHistory(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, ok := strings.CutPrefix(uri, historyScheme)
	if !ok || name == "" {
		return nil, mcpx.InvalidParams("invalid ruleset history URI '" + uri + "': want ruleset-history://{name}")
	}
	changes, err := h.lib.History(ctx, name, rulesets.MaxHistory)
	if err != nil {
		return nil, mcpx.ProtocolError("failed to retrieve ruleset history", err)
	}
	b, err := json.Marshal(historyDoc{Name: name, Changes: changes})
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}
