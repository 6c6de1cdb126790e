package mcprulesets_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// Bad input of every kind gets a precise error and changes nothing stored.
func TestBadInput(t *testing.T) {
	forEachStore(t, func(t *testing.T, f *fixture) {
		createPython(f)
		before, _ := f.call("get_ruleset", map[string]any{"name": "python_style_guide"})

		invalidName := func(n string) string {
			return fmt.Sprintf("invalid ruleset name '%s': must use snake_case (lowercase letters, numbers, and underscores only)", n)
		}
		for _, name := range []string{"../x", "a__b", "_x", "x_", "_private", "api__rules", "style-guide", "Python-Style",
			"ünïcode", "日本", "a b", "a/b", "ruleset:x", "x*", strings.Repeat("a", rulesets.MaxNameLen+1)} {
			f.fails("upsert_ruleset", map[string]any{"name": name, "description": "d", "markdown": "m"}, "failed to upsert ruleset: "+invalidName(name))
			f.fails("get_ruleset", map[string]any{"name": name}, "failed to retrieve ruleset: "+invalidName(name))
			f.fails("delete_ruleset", map[string]any{"name": name}, "failed to delete ruleset: "+invalidName(name))
		}
		for _, name := range []string{"python_style_guide", "api_v2_rules", "test123", "a", "1"} {
			if got, isErr := f.call("get_ruleset", map[string]any{"name": name}); isErr && strings.Contains(got, "invalid") {
				t.Errorf("valid name %q refused: %s", name, got)
			}
		}

		// Wrong shapes are JSON-RPC invalid-params errors naming the parameter.
		f.protocolError("upsert_ruleset", map[string]any{"description": "d", "markdown": "m"}, -32602,
			"missing required parameter 'name': the snake_case name of the ruleset to create or update")
		f.protocolError("get_ruleset", map[string]any{}, -32602, "missing required parameter 'name': the exact name of the ruleset to retrieve")
		f.protocolError("delete_ruleset", map[string]any{"name": ""}, -32602, "missing required parameter 'name': the name of the ruleset to delete")
		f.protocolError("search_rulesets", map[string]any{}, -32602, "missing required parameter 'pattern': a glob pattern such as '*python*' ('*' matches every ruleset)")
		f.protocolError("upsert_ruleset", map[string]any{"name": 5}, -32602, "invalid parameter 'name': expected string, got number")
		f.protocolError("upsert_ruleset", map[string]any{"name": "python_style_guide", "tags": "python"}, -32602, "invalid parameter 'tags': expected array, got string")
		f.protocolError("upsert_ruleset", map[string]any{"name": "python_style_guide", "tags": []any{1, 2}}, -32602, "invalid parameter 'tags': expected string, got number")
		f.protocolError("upsert_ruleset", map[string]any{"name": "python_style_guide", "description": true}, -32602, "invalid parameter 'description': expected string, got bool")
		f.protocolError("upsert_ruleset", map[string]any{"name": "python_style_guide", "desc": "x"}, -32602, "unknown parameter 'desc'; expected: name, description, markdown, tags")
		f.protocolError("list_rulesets", map[string]any{"page": 3}, -32602, "unknown parameter 'page'; expected: cursor, limit")
		f.protocolError("list_rulesets", map[string]any{"limit": "3"}, -32602, "invalid parameter 'limit': expected number, got string")
		f.protocolError("list_rulesets", map[string]any{"limit": 1001}, -32602, "invalid parameter 'limit': must be between 1 and 1000 (default 100)")
		f.protocolError("search_rulesets", map[string]any{"pattern": "*", "limit": -1}, -32602, "invalid parameter 'limit': must be between 1 and 1000 (default 100)")
		f.protocolError("list_rulesets", map[string]any{"cursor": 7}, -32602, "invalid parameter 'cursor': expected string, got number")
		f.protocolError("no_such_tool", map[string]any{}, -32602, "")

		// Content limits.
		f.fails("upsert_ruleset", map[string]any{"name": "python_style_guide", "markdown": strings.Repeat("x", rulesets.MaxMarkdownLen+1)},
			fmt.Sprintf("failed to upsert ruleset: markdown is too large (%d bytes; the limit is %d)", rulesets.MaxMarkdownLen+1, rulesets.MaxMarkdownLen))
		f.fails("upsert_ruleset", map[string]any{"name": "python_style_guide", "description": "two\nlines"},
			"failed to upsert ruleset: description must be a single line")
		f.fails("upsert_ruleset", map[string]any{"name": "python_style_guide", "tags": []string{"ok", " padded"}},
			`failed to upsert ruleset: invalid tag " padded": tags are non-empty single words or phrases of at most 64 bytes, without surrounding spaces`)

		// An empty text is "not given": it never blanks a stored field.
		f.clock.Set("2025-10-29 10:30:00")
		f.ok("upsert_ruleset", map[string]any{"name": "python_style_guide", "description": "", "markdown": ""}, "Successfully upserted ruleset 'python_style_guide'")

		after, _ := f.call("get_ruleset", map[string]any{"name": "python_style_guide"})
		if after != before {
			t.Fatalf("bad input changed the ruleset:\n%s\n%s", before, after)
		}
		if list, _ := f.call("list_rulesets", map[string]any{}); !strings.HasPrefix(list, "Found 1 ruleset(s)") {
			t.Fatalf("bad input stored something: %s", list)
		}

		// Unicode content round-trips.
		f.ok("upsert_ruleset", map[string]any{"name": "unicode_rules", "description": "Règles — 日本語", "tags": []string{"ß", "日本"}, "markdown": "# 🚀\n"},
			"Successfully upserted ruleset 'unicode_rules'")
		got, _ := f.call("get_ruleset", map[string]any{"name": "unicode_rules"})
		if !strings.Contains(got, "description: Règles — 日本語\ntags: [ß, 日本]\n") || !strings.HasSuffix(got, "# 🚀\n") {
			t.Fatalf("unicode: %q", got)
		}

		// A resource URI with a bad name is invalid params.
		_, err := f.read("ruleset://Bad-Name")
		checkRPCError(t, err, -32602, "failed to retrieve ruleset: "+invalidName("Bad-Name"))
	})
}

// A client that asked for log messages hears about every change. (Since
// protocol 2026-07-28 the level travels in each request's _meta; before, in
// logging/setLevel.)
func TestLoggingNotifications(t *testing.T) {
	forEachStore(t, func(t *testing.T, f *fixture) {
		//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
		if err := f.cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
		for _, p := range []*mcp.CallToolParams{
			{Name: "upsert_ruleset", Arguments: map[string]any{"name": "python_style_guide", "description": "d", "markdown": "m"}},
			{Name: "delete_ruleset", Arguments: map[string]any{"name": "python_style_guide"}},
		} {
			//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
			p.Meta = mcp.Meta{mcp.MetaKeyLogLevel: "info"}
			if res, err := f.cs.CallTool(context.Background(), p); err != nil || res.IsError {
				t.Fatalf("%s: %v %+v", p.Name, err, res)
			}
		}
		for _, want := range []string{"created ruleset", "deleted ruleset"} {
			select {
			case p := <-f.logs:
				if p.Logger != "rulesets" || !strings.Contains(fmt.Sprint(p.Data), want) || !strings.Contains(fmt.Sprint(p.Data), "python_style_guide") {
					t.Fatalf("log %+v, want %q", p, want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("no log message %q", want)
			}
		}
	})
}

func TestInitialize(t *testing.T) {
	f := connect(t, stores[0].open(t))
	init := f.cs.InitializeResult()
	if init.ServerInfo.Name != "MCP Ruleset Server" || init.ServerInfo.Version != "1.0.0" {
		t.Fatalf("serverInfo = %+v", init.ServerInfo)
	}
	c := init.Capabilities
	//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
	if c.Logging == nil || c.Resources == nil || c.Tools == nil || c.Prompts != nil {
		t.Fatalf("capabilities = %+v", c)
	}
	if !strings.Contains(init.Instructions, "search_rulesets") {
		t.Fatalf("instructions = %q", init.Instructions)
	}
}
