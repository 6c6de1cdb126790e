package mcpx

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FixedTTLMillis is how long a client may keep a list that never changes
// while the server runs (tools, prompts, resource templates, and
// server/discover): an hour, after which a restarted server (a new
// version) is seen. Issues, tasks and rulesets change at any time, so
// resources/list and resources/read keep the SDK's 0 (stale at once).
const FixedTTLMillis = 3600 * 1000

// cacheHints sets the caching hints of 2026-07-28 (ttlMs, cacheScope) on
// the results that carry them. Behind tokens a result is "private": only
// the client that asked may keep it, never a shared cache that would hand
// it to someone without a token.
func cacheHints(private bool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil {
				// The result is then a typed nil at best.
				return res, err
			}
			var c *mcp.Cacheable
			fixed := false
			switch r := res.(type) {
			case *mcp.ListToolsResult:
				c, fixed = &r.Cacheable, true
			case *mcp.ListPromptsResult:
				c, fixed = &r.Cacheable, true
			case *mcp.ListResourceTemplatesResult:
				c, fixed = &r.Cacheable, true
			case *mcp.DiscoverResult:
				c, fixed = &r.Cacheable, true
			case *mcp.ListResourcesResult:
				c = &r.Cacheable
			case *mcp.ReadResourceResult:
				c = &r.Cacheable
			}
			if c == nil {
				return res, err
			}
			if fixed {
				c.TTLMs = FixedTTLMillis
			}
			if private {
				c.CacheScope = "private"
			}
			return res, err
		}
	}
}
