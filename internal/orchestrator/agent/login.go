package agent

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// LoggedIn reports whether the agent CLI of kind has a login in the
// environment getenv reads, with home as HOME: an API key or token among
// the variables its process inherits (Credentials), or the file its own
// login writes. why names what was found or, when nothing was, what the
// user can do. A worker offers only the CLIs it can run for real: one
// installed but never logged in would take tasks and fail each.
//
// It reads what the CLIs keep at the versions of Packages; a login it
// does not know (a helper program, a cloud's own credentials) reads as
// none, and the worker's --agents flag offers the CLI anyway.
func LoggedIn(kind string, getenv func(string) string, home string) (ok bool, why string) {
	l, known := logins[kind]
	if !known {
		return true, "needs no login"
	}
	for _, k := range l.env {
		if getenv(k) != "" {
			return true, k + " is set"
		}
	}
	for _, f := range l.files(getenv, home) {
		if f.holds() {
			return true, f.path
		}
	}
	return false, l.hint
}

// login is where a CLI's login may be.
type login struct {
	env   []string // variables any one of which is a login
	files func(getenv func(string) string, home string) []loginFile
	hint  string // what to do when there is none
}

// loginFile is a file that holds a login: present, or (key set) a JSON
// object with that key, or (prefix set) a line starting with it.
type loginFile struct {
	path, key, prefix string
}

var logins = map[string]login{
	ToolClaudeCode: {
		env: []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"},
		files: func(getenv func(string) string, home string) []loginFile {
			dir := ownDir(ToolClaudeCode, getenv, home)
			return []loginFile{{path: filepath.Join(dir, ".credentials.json")}, {path: filepath.Join(home, ".claude.json"), key: "primaryApiKey"},
				{path: filepath.Join(dir, "settings.json"), key: "apiKeyHelper"}}
		},
		hint: "run `claude` once and log in, or set ANTHROPIC_API_KEY",
	},
	ToolCodex: {
		env: []string{"OPENAI_API_KEY", "CODEX_API_KEY"},
		files: func(getenv func(string) string, home string) []loginFile {
			dir := ownDir(ToolCodex, getenv, home)
			// A provider of the user's own names its key in config.toml.
			return []loginFile{{path: filepath.Join(dir, "auth.json")}, {path: filepath.Join(dir, "config.toml"), prefix: "model_provider"}}
		},
		hint: "run `codex login`, or set OPENAI_API_KEY",
	},
	ToolGemini: {
		env: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA", "GOOGLE_APPLICATION_CREDENTIALS"},
		files: func(getenv func(string) string, home string) []loginFile {
			return []loginFile{{path: filepath.Join(ownDir(ToolGemini, getenv, home), "oauth_creds.json")}}
		},
		hint: "run `gemini` once and log in, or set GEMINI_API_KEY",
	},
	ToolOpenCode: {
		env: []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENROUTER_API_KEY",
			"GROQ_API_KEY", "MISTRAL_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY"},
		files: func(getenv func(string) string, home string) []loginFile {
			config := filepath.Join(home, ".config")
			if v := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(v) {
				config = v
			}
			// A provider of the user's own carries its key in the config.
			return []loginFile{{path: OpenCodeLogin(getenv, home)},
				{path: filepath.Join(config, "opencode", "opencode.json"), key: "provider"},
				{path: filepath.Join(config, "opencode", "opencode.jsonc"), prefix: `"provider"`}}
		},
		hint: "run `opencode auth login`, or set a provider's API key (e.g. ANTHROPIC_API_KEY)",
	},
}

// ownDir is the first directory OwnPaths gives kind: its configuration's.
func ownDir(kind string, getenv func(string) string, home string) string {
	dirs, _ := OwnPaths(kind, getenv, home)
	return dirs[0]
}

// maxLoginFile bounds what is read of a file that may hold a login.
const maxLoginFile = 1 << 20

// holds reports whether f holds a login. It reads a regular file only,
// and at most maxLoginFile of it.
func (f loginFile) holds() bool {
	fi, err := os.Stat(f.path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return false
	}
	if f.key == "" && f.prefix == "" {
		return true
	}
	file, err := os.Open(f.path)
	if err != nil {
		return false
	}
	defer file.Close()
	r := io.LimitReader(file, maxLoginFile)
	if f.key != "" {
		var obj map[string]json.RawMessage
		if json.NewDecoder(r).Decode(&obj) != nil {
			return false
		}
		v, ok := obj[f.key]
		return ok && string(v) != "null" && string(v) != `""`
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if strings.HasPrefix(strings.TrimSpace(sc.Text()), f.prefix) {
			return true
		}
	}
	return false
}
