package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A CLI counts as logged in by a key among its variables or by the file
// its own login writes; an empty file, a JSON file without the key (or
// with it null), a directory where the file should be, or nothing at all
// is no login, and the answer says what to do.
func TestLoggedIn(t *testing.T) {
	write := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, kind string
		env        map[string]string
		files      map[string]string // below home
		dirs       []string          // below home
		want       bool
		why        string
	}{
		{"claude none", ToolClaudeCode, nil, nil, nil, false, "ANTHROPIC_API_KEY"},
		{"claude key", ToolClaudeCode, map[string]string{"ANTHROPIC_API_KEY": "k"}, nil, nil, true, "ANTHROPIC_API_KEY is set"},
		{"claude oauth file", ToolClaudeCode, nil, map[string]string{".claude/.credentials.json": `{"claudeAiOauth":{}}`}, nil, true, ".credentials.json"},
		{"claude config dir moved", ToolClaudeCode, map[string]string{"CLAUDE_CONFIG_DIR": "/nowhere"}, map[string]string{".claude/.credentials.json": `{}`}, nil, false, ""},
		{"claude api key in .claude.json", ToolClaudeCode, nil, map[string]string{".claude.json": `{"primaryApiKey":"sk"}`}, nil, true, ".claude.json"},
		{"claude .claude.json without key", ToolClaudeCode, nil, map[string]string{".claude.json": `{"numStartups":3,"primaryApiKey":null}`}, nil, false, ""},
		{"claude empty credentials", ToolClaudeCode, nil, map[string]string{".claude/.credentials.json": ``}, nil, false, ""},
		{"claude credentials a directory", ToolClaudeCode, nil, nil, []string{".claude/.credentials.json"}, false, ""},
		{"codex none", ToolCodex, map[string]string{"ANTHROPIC_API_KEY": "k"}, nil, nil, false, "codex login"},
		{"codex auth file", ToolCodex, nil, map[string]string{".codex/auth.json": `{"tokens":{}}`}, nil, true, "auth.json"},
		{"codex own provider", ToolCodex, nil, map[string]string{".codex/config.toml": "model = \"m\"\n  model_provider = \"mine\"\n"}, nil, true, "config.toml"},
		{"codex config without provider", ToolCodex, nil, map[string]string{".codex/config.toml": "model = \"m\"\n"}, nil, false, ""},
		{"gemini key", ToolGemini, map[string]string{"GEMINI_API_KEY": "k"}, nil, nil, true, "GEMINI_API_KEY"},
		{"gemini oauth", ToolGemini, nil, map[string]string{".gemini/oauth_creds.json": `{}`}, nil, true, "oauth_creds.json"},
		{"gemini none", ToolGemini, map[string]string{"OPENAI_API_KEY": "k"}, nil, nil, false, "GEMINI_API_KEY"},
		{"opencode auth", ToolOpenCode, nil, map[string]string{".local/share/opencode/auth.json": `{}`}, nil, true, "auth.json"},
		{"opencode provider key", ToolOpenCode, map[string]string{"OPENROUTER_API_KEY": "k"}, nil, nil, true, "OPENROUTER_API_KEY"},
		{"opencode own provider", ToolOpenCode, nil, map[string]string{".config/opencode/opencode.json": `{"provider":{"x":{}}}`}, nil, true, "opencode.json"},
		{"opencode config without provider", ToolOpenCode, nil, map[string]string{".config/opencode/opencode.json": `{"model":"m"}`}, nil, false, "opencode auth login"},
		{"command", ToolCommand, nil, nil, nil, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			for p, content := range c.files {
				write(t, filepath.Join(home, p), content)
			}
			for _, d := range c.dirs {
				if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			ok, why := LoggedIn(c.kind, func(k string) string { return c.env[k] }, home)
			if ok != c.want || !strings.Contains(why, c.why) {
				t.Fatalf("LoggedIn = %v, %q; want %v, saying %q", ok, why, c.want, c.why)
			}
		})
	}
}
