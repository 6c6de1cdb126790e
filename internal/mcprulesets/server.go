// Package rulesets is the MCP Ruleset Server: the specification's five
// tools and ruleset://{name} resource template over a rulesets.Library,
// with every text and error as the specification prints it, and the
// library's further tools (import, resolve, versions) beside them.
package mcprulesets

import (
	"context"
	_ "embed"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// Name and Version are the server's identity in the initialize result.
const (
	Name    = "MCP Ruleset Server"
	Version = "1.0.0"
)

//go:embed instructions.md
var instructions string

// handlers carries what every tool needs.
type handlers struct {
	lib    rulesets.Library
	logger *slog.Logger
	roots  importRoots
}

// Options configure the server beyond its library.
type Options struct {
	Logger *slog.Logger // nil discards
	// PageSize is how many tools or resource templates a list request
	// returns at most (mcp.ServerOptions.PageSize); 0 is the SDK's default
	// (1,000), far above the server's ten tools and two templates.
	PageSize int
	// ImportRoots are the directories import_rules may read under; nil:
	// DefaultImportRoots.
	ImportRoots []string
}

// NewWithOptions returns the server over lib with opts.
func NewWithOptions(lib rulesets.Library, opts Options) *mcp.Server {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Version: Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       mcpx.SDKLogger(logger),
		PageSize:     opts.PageSize,
		Capabilities: &mcp.ServerCapabilities{
			//lint:ignore SA1019 MCP logging stays for clients of protocol versions before its deprecation (SEP-2577); moving to its replacement is separate work
			Logging:   &mcp.LoggingCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
			Tools:     &mcp.ToolCapabilities{},
		},
	})
	roots := opts.ImportRoots
	if roots == nil {
		roots = DefaultImportRoots()
	}
	h := handlers{lib: lib, logger: logger, roots: newImportRoots(roots)}
	mcpx.AddTools(s,
		h.upsertRuleset(),
		h.getRuleset(),
		h.deleteRuleset(),
		h.listRulesets(),
		h.searchRulesets(),
		h.importRules(),
		h.resolveRules(),
		h.getRulesetVersion(),
		h.diffRulesetVersions(),
		h.restoreRuleset(),
	)
	s.AddResourceTemplate(resourceTemplate, h.readRuleset)
	s.AddResourceTemplate(historyTemplate, h.readHistory)
	return s
}

// libFor is the library recording its changes as the caller of ctx (the
// client's token name over HTTP), else as the library's own actor.
func (h handlers) libFor(ctx context.Context) rulesets.Library {
	lib := h.lib
	if caller := mcpx.CallerFrom(ctx); caller != "" {
		lib.Actor = caller
	}
	return lib
}
