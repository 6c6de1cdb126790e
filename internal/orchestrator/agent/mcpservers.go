package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MCPServer is an MCP server (stdio) an agent is given, written into its
// CLI's own MCP configuration: Claude Code's --mcp-config, Codex's
// mcp_servers (as -c overrides), Gemini CLI's mcpServers (in a system
// settings file), OpenCode's mcp (in OPENCODE_CONFIG_CONTENT). A COMMAND
// gets them as JSON in SUDOCODE_MCP_SERVERS.
type MCPServer struct {
	Name    string            `json:"name"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// envNames are s's variable names, sorted, so that argv stays stable.
func (s MCPServer) envNames() []string {
	names := make([]string, 0, len(s.Env))
	for k := range s.Env {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// claudeMCP is the --mcp-config JSON and the --allowedTools entries that
// let a headless run call the servers' tools without a prompt.
func claudeMCP(servers []MCPServer) (config string, allowed []string) {
	m := map[string]any{}
	for _, s := range servers {
		m[s.Name] = map[string]any{"type": "stdio", "command": s.Command, "args": s.Args, "env": s.Env}
		allowed = append(allowed, "mcp__"+s.Name)
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": m})
	return string(b), allowed
}

// codexMCP is the -c overrides that declare the servers (TOML values; a
// JSON string or array of strings is one).
func codexMCP(servers []MCPServer) []string {
	var out []string
	for _, s := range servers {
		key := "mcp_servers." + s.Name
		cmd, _ := json.Marshal(s.Command)
		args, _ := json.Marshal(s.Args)
		out = append(out, "-c", key+".command="+string(cmd), "-c", key+".args="+string(args))
		if len(s.Env) > 0 {
			var kv []string
			for _, k := range s.envNames() {
				v, _ := json.Marshal(s.Env[k])
				kv = append(kv, k+"="+string(v))
			}
			out = append(out, "-c", key+".env={"+strings.Join(kv, ", ")+"}")
		}
	}
	return out
}

// geminiMCP writes the servers as Gemini CLI system settings in dir and
// returns the variable that points Gemini at them (system settings merge
// over the user's, which keep their auth). Trusted: a headless run cannot
// confirm a tool call.
func geminiMCP(servers []MCPServer, dir string) ([]string, error) {
	m := map[string]any{}
	for _, s := range servers {
		m[s.Name] = map[string]any{"command": s.Command, "args": s.Args, "env": s.Env, "trust": true}
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": m})
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "gemini-settings.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return nil, err
	}
	return []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + path}, nil
}

// openCodeMCP is OPENCODE_CONFIG_CONTENT declaring the servers (merged by
// OpenCode over its other configuration).
func openCodeMCP(servers []MCPServer) string {
	m := map[string]any{}
	for _, s := range servers {
		env := s.Env
		if env == nil {
			env = map[string]string{}
		}
		m[s.Name] = map[string]any{"type": "local", "command": append([]string{s.Command}, s.Args...), "environment": env, "enabled": true}
	}
	b, _ := json.Marshal(map[string]any{"mcp": m})
	return "OPENCODE_CONFIG_CONTENT=" + string(b)
}

// commandMCP is SUDOCODE_MCP_SERVERS for a COMMAND.
func commandMCP(servers []MCPServer) string {
	b, _ := json.Marshal(servers)
	return "SUDOCODE_MCP_SERVERS=" + string(b)
}
