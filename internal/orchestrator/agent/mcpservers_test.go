package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each adapter hands the MCP servers of a run to its CLI in the CLI's own
// configuration; without servers it adds nothing.
func TestMCPServersInEachCLIsConfig(t *testing.T) {
	srv := []MCPServer{{Name: "sudocode", Command: "/bin/sudocode", Args: []string{"mcp"}, Env: map[string]string{"SUDOCODE_WORKING_DIR": "/repo"}}}
	dir := t.TempDir()
	spec := RunSpec{Instructions: "x", Dir: "/wt", MCPServers: srv, ConfigDir: dir}
	inv := func(a Adapter, s RunSpec) Invocation {
		i, err := a.Invocation(s)
		if err != nil {
			t.Fatalf("%s: %v", a.Kind(), err)
		}
		return i
	}
	claude := strings.Join(inv(Claude{}, spec).Argv, " ")
	if !strings.Contains(claude, `--mcp-config {"mcpServers":{"sudocode":{"args":["mcp"],"command":"/bin/sudocode","env":{"SUDOCODE_WORKING_DIR":"/repo"},"type":"stdio"}}}`) ||
		!strings.Contains(claude, "--allowedTools mcp__sudocode") {
		t.Errorf("claude argv: %s", claude)
	}
	codex := strings.Join(inv(Codex{}, spec).Argv, " ")
	for _, want := range []string{`-c mcp_servers.sudocode.command="/bin/sudocode"`, `-c mcp_servers.sudocode.args=["mcp"]`, `-c mcp_servers.sudocode.env={SUDOCODE_WORKING_DIR="/repo"}`} {
		if !strings.Contains(codex, want) {
			t.Errorf("codex argv lacks %s: %s", want, codex)
		}
	}
	gem := strings.Join(inv(Gemini{}, spec).Env, " ")
	path := filepath.Join(dir, "gemini-settings.json")
	if !strings.Contains(gem, "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+path) {
		t.Errorf("gemini env: %s", gem)
	}
	var settings map[string]map[string]map[string]any
	if b, err := os.ReadFile(path); err != nil || json.Unmarshal(b, &settings) != nil || settings["mcpServers"]["sudocode"]["trust"] != true {
		t.Errorf("gemini settings: %v %v", settings, err)
	}
	oc := strings.Join(inv(OpenCode{}, spec).Env, " ")
	if !strings.Contains(oc, `OPENCODE_CONFIG_CONTENT={"mcp":{"sudocode":{"command":["/bin/sudocode","mcp"],"enabled":true,"environment":{"SUDOCODE_WORKING_DIR":"/repo"},"type":"local"}}}`) {
		t.Errorf("opencode env: %s", oc)
	}
	cmd := RunSpec{Instructions: "x", MCPServers: srv, Config: map[string]any{"command": []any{"true"}}}
	if env := strings.Join(inv(Command{}, cmd).Env, " "); !strings.Contains(env, `SUDOCODE_MCP_SERVERS=[{"name":"sudocode"`) {
		t.Errorf("command env: %s", env)
	}
	for _, a := range []Adapter{Claude{}, Codex{}, Gemini{}, OpenCode{}} {
		plain := inv(a, RunSpec{Instructions: "x", Dir: "/wt"})
		if s := strings.Join(append(plain.Argv, plain.Env...), " "); strings.Contains(s, "mcp") || strings.Contains(s, "MCP") {
			t.Errorf("%s without servers: %s", a.Kind(), s)
		}
	}
}
