package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// clientConfigs are ready-to-paste configurations of the common MCP
// clients for servers that need a bearer token: what `serve` and
// `mcp agent --http` print at start.
type clientConfigs struct {
	// ClaudeCode is one `claude mcp add` command per server.
	ClaudeCode []string `json:"claude_code"`
	// Codex is a fragment of ~/.codex/config.toml.
	Codex string `json:"codex"`
	// Cursor is a .cursor/mcp.json document.
	Cursor cursorConfig `json:"cursor"`
}

type cursorConfig struct {
	MCPServers map[string]cursorServer `json:"mcpServers"`
}

type cursorServer struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// mcpEndpoint is a server as a client names and reaches it.
type mcpEndpoint struct{ name, url string }

// configsFor writes the clients' configurations of endpoints, each with
// the header Authorization: Bearer token. Codex takes literal headers in
// http_headers (its bearer_token field wants the token in an environment
// variable instead); Cursor in "headers"; Claude Code with --header.
func configsFor(endpoints []mcpEndpoint, token string) *clientConfigs {
	c := &clientConfigs{Cursor: cursorConfig{MCPServers: map[string]cursorServer{}}}
	header := "Bearer " + token
	var codex strings.Builder
	codex.WriteString("[mcp_servers]\n")
	for _, e := range endpoints {
		c.ClaudeCode = append(c.ClaudeCode, "claude mcp add --transport http "+e.name+" "+e.url+" --header "+shellQuote("Authorization: "+header))
		fmt.Fprintf(&codex, "%s = { url = %s, http_headers = { Authorization = %s } }\n", e.name, tomlString(e.url), tomlString(header))
		c.Cursor.MCPServers[e.name] = cursorServer{URL: e.url, Headers: map[string]string{"Authorization": header}}
	}
	c.Codex = codex.String()
	return c
}

// print writes c compactly, indented under a line saying where the token
// is kept.
func (c *clientConfigs) print(w io.Writer) {
	fmt.Fprintln(w, "  Claude Code:")
	for _, cmd := range c.ClaudeCode {
		fmt.Fprintln(w, "    "+cmd)
	}
	fmt.Fprintln(w, "  Codex (~/.codex/config.toml):")
	for _, line := range strings.Split(strings.TrimSuffix(c.Codex, "\n"), "\n") {
		fmt.Fprintln(w, "    "+line)
	}
	fmt.Fprintln(w, "  Cursor (.cursor/mcp.json):")
	fmt.Fprintln(w, "    "+compactJSON(c.Cursor))
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// tomlString is s as a TOML basic string: JSON's escapes (\" \\ \uXXXX)
// are TOML's.
func tomlString(s string) string { return compactJSON(s) }

func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
