package modelsim

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// codexCatalog writes, in codexHome, the model catalog of the pinned Codex
// (`codex debug models`, its bundled one) with the simulated model marked
// as not supporting Codex's tool search, and returns its path for
// model_catalog_json. The simulator does not implement tool_search: with
// it, Codex would hand the model the MCP servers' tools only through a
// search; without it, Codex offers them directly (one Responses namespace
// per server), which the simulator can call.
func codexCatalog(t testing.TB, env []string, codexHome string) string {
	t.Helper()
	bin, err := LookPath(env, "codex")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(codexHome, 0o755); err != nil { // Codex wants its home to exist
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "debug", "models")
	cmd.Env = append(env, "CODEX_HOME="+codexHome)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("codex debug models: %v\n%s", err, stderr.String())
	}
	var catalog map[string]any
	if err := json.Unmarshal(out, &catalog); err != nil {
		t.Fatalf("codex debug models printed no JSON catalog: %v", err)
	}
	models, _ := catalog["models"].([]any)
	found := false
	for _, m := range models {
		if entry, ok := m.(map[string]any); ok && entry["slug"] == CodexModel {
			entry["supports_search_tool"] = false
			found = true
		}
	}
	if !found {
		t.Fatalf("Codex's bundled catalog has no model %s", CodexModel)
	}
	path := filepath.Join(codexHome, "models.json")
	writeJSONFile(t, path, catalog)
	return path
}
