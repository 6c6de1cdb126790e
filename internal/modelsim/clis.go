package modelsim

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sudocode/sudocode/internal/npmtool"
	"github.com/sudocode/sudocode/internal/testkit"
)

// The real coding-agent CLIs, pinned. Each Setup function installs its CLI
// (once per cache) and returns the environment that runs it against sim:
// a scratch HOME with the CLI's config files, the CLI and Node 22 first on
// PATH, and no variable of the outer environment that could point a CLI
// at a real vendor or real credentials. Run the CLI with that environment
// (exec.Cmd.Env; LookPath finds the binary on its PATH), and append
// PWD=<dir> when setting Dir.
const (
	ClaudePackage   = "@anthropic-ai/claude-code"
	ClaudeVersion   = "2.1.331"
	CodexPackage    = "@openai/codex"
	CodexVersion    = "0.169.0"
	GeminiPackage   = "@google/gemini-cli"
	GeminiVersion   = "0.61.0"
	OpenCodePackage = "opencode-ai"
	OpenCodeVersion = "1.18.33"
)

// pinnedCLIs are the four CLIs: package, version, and the bin that runs it.
var pinnedCLIs = [][3]string{
	{ClaudePackage, ClaudeVersion, "claude"},
	{CodexPackage, CodexVersion, "codex"},
	{GeminiPackage, GeminiVersion, "gemini"},
	{OpenCodePackage, OpenCodeVersion, "opencode"},
}

// InstallCLIs installs Node and the four pinned CLIs into the npm cache
// (npmtool.CacheDir) as the tests do at their first use, one after the
// other. Installing them up front (go run ./tools/agentclis, as .ci/run
// does) keeps the downloads out of the tests' time.
func InstallCLIs() error {
	for _, c := range pinnedCLIs {
		if _, err := installCLI(c[0], c[1], c[2]); err != nil {
			return fmt.Errorf("installing %s@%s (it needs npm: apt-get install -y npm): %w", c[0], c[1], err)
		}
	}
	return nil
}

// SimKey is the API key every CLI is given; the simulator accepts any.
const SimKey = "sim-key-not-secret"

// SetupClaude prepares Claude Code. As root it also sets IS_SANDBOX=1,
// without which the CLI refuses bypassPermissions.
func SetupClaude(t testing.TB, sim *Server) []string {
	env := cliEnv(t, ClaudePackage, ClaudeVersion, "claude")
	env = append(env, "ANTHROPIC_BASE_URL="+sim.URL, "ANTHROPIC_API_KEY="+SimKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	if os.Geteuid() == 0 {
		env = append(env, "IS_SANDBOX=1")
	}
	return env
}

// CodexModel is a model of Codex's bundled catalog: with one outside it,
// Codex offers no apply_patch tool.
const CodexModel = "gpt-5.5"

// SetupCodex prepares Codex with a custom provider on the Responses API
// (this version refuses wire_api "chat"). Its key is in OPENAI_API_KEY,
// one of the variables the orchestrator lets Codex inherit: a variable of
// another name would need the task's config.pass_env.
func SetupCodex(t testing.TB, sim *Server) []string {
	env := cliEnv(t, CodexPackage, CodexVersion, "codex")
	codexHome := filepath.Join(homeOf(env), ".codex")
	catalog := codexCatalog(t, env, codexHome)
	config := fmt.Sprintf(`model = %q
model_provider = "modelsim"
model_catalog_json = %q

[model_providers.modelsim]
name = "modelsim"
base_url = %q
env_key = "OPENAI_API_KEY"
wire_api = "responses"
`, CodexModel, catalog, sim.URL+"/v1")
	writeFile(t, filepath.Join(codexHome, "config.toml"), config)
	return append(env, "CODEX_HOME="+codexHome, "OPENAI_API_KEY="+SimKey)
}

// SetupGemini prepares the Gemini CLI. GOOGLE_GEMINI_BASE_URL alone makes
// it pick a gateway auth type that headless runs reject, hence the
// settings file.
func SetupGemini(t testing.TB, sim *Server) []string {
	env := cliEnv(t, GeminiPackage, GeminiVersion, "gemini")
	settings := map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
	}
	writeJSONFile(t, filepath.Join(homeOf(env), ".gemini", "settings.json"), settings)
	return append(env, "GOOGLE_GEMINI_BASE_URL="+sim.URL, "GEMINI_API_KEY="+SimKey)
}

// OpenCodeModel is the model name to pass with -m: the simulator's
// provider, configured in the user's global opencode.json.
const OpenCodeModel = "modelsim/sim-model"

// SetupOpenCode prepares OpenCode with an OpenAI-compatible provider.
func SetupOpenCode(t testing.TB, sim *Server) []string {
	env := cliEnv(t, OpenCodePackage, OpenCodeVersion, "opencode")
	config := map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"model":       OpenCodeModel,
		"small_model": OpenCodeModel,
		"autoupdate":  false,
		"share":       "disabled",
		"provider": map[string]any{"modelsim": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "modelsim",
			"options": map[string]any{"baseURL": sim.URL + "/v1", "apiKey": SimKey},
			"models":  map[string]any{"sim-model": map[string]any{"name": "Simulated model"}},
		}},
	}
	writeJSONFile(t, filepath.Join(homeOf(env), ".config", "opencode", "opencode.json"), config)
	return append(env, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1")
}

// deadProxy is a loopback port nothing listens on (the discard port).
const deadProxy = "http://127.0.0.1:9"

// leakyPrefixes are variables of the outer environment a CLI could read:
// credentials, endpoints, config homes, and the marks of running inside
// another agent.
var leakyPrefixes = []string{"ANTHROPIC_", "CLAUDE", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_", "OPENCODE",
	"XDG_", "HOME=", "PATH=", "PWD=", "AWS_", "AZURE_", "VERTEX", "CLOUD_ML_", "IS_SANDBOX=", "NODE_OPTIONS=",
	"HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=", "NO_PROXY=", "no_proxy=", "ALL_PROXY=", "all_proxy="}

// cliEnv installs the CLI and returns a clean environment with a scratch
// HOME and the CLI and Node on PATH.
func cliEnv(t testing.TB, pkg, version, bin string) []string {
	t.Helper()
	dir := requireCLI(t, pkg, version, bin)
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		leaky := false
		for _, p := range leakyPrefixes {
			leaky = leaky || strings.HasPrefix(kv, p)
		}
		if !leaky {
			env = append(env, kv)
		}
	}
	node, _ := npmtool.InstallNode() // installed by requireCLI
	return append(env, "HOME="+home,
		// Anything but the simulator goes to a closed loopback port: the
		// CLIs run offline, and a call home fails at once instead of
		// leaving the machine.
		"HTTP_PROXY="+deadProxy, "HTTPS_PROXY="+deadProxy, "http_proxy="+deadProxy, "https_proxy="+deadProxy,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"PATH="+dir+string(os.PathListSeparator)+node.PathDir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

var (
	cliMu    sync.Mutex
	cliDirs  = map[string]string{}
	cliFails = map[string]error{}
)

// requireCLI installs pkg@version once per process and returns the
// directory holding its bin; without it the test skips, or fails on CI.
func requireCLI(t testing.TB, pkg, version, bin string) string {
	t.Helper()
	cliMu.Lock()
	defer cliMu.Unlock()
	key := pkg + "@" + version
	if _, done := cliDirs[key]; !done && cliFails[key] == nil {
		cliDirs[key], cliFails[key] = installCLI(pkg, version, bin)
	}
	if err := cliFails[key]; err != nil {
		testkit.Missing(t, "installing %s (it needs npm: apt-get install -y npm): %v", key, err)
	}
	return cliDirs[key]
}

func installCLI(pkg, version, bin string) (string, error) {
	node, err := npmtool.InstallNode()
	if err != nil {
		return "", err
	}
	prefix, err := npmtool.Install(pkg, version, node.PathDir)
	if err != nil {
		return "", err
	}
	if _, err := npmtool.BinScript(prefix, pkg, version, bin); err != nil {
		return "", err
	}
	return filepath.Join(prefix, "node_modules", ".bin"), nil
}

// LookPath finds name on the PATH of env. exec.Command looks a bare name
// up on this process's PATH, not on cmd.Env's, so a test that runs a CLI
// by name with a Setup environment either uses this path or sets PATH.
func LookPath(env []string, name string) (string, error) {
	for i := len(env) - 1; i >= 0; i-- {
		if p, ok := strings.CutPrefix(env[i], "PATH="); ok {
			for _, d := range filepath.SplitList(p) {
				f := filepath.Join(d, name)
				if st, err := os.Stat(f); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
					return f, nil
				}
			}
			break
		}
	}
	return "", fmt.Errorf("%s is not on the PATH of the CLI environment", name)
}

func homeOf(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if h, ok := strings.CutPrefix(env[i], "HOME="); ok {
			return h
		}
	}
	return ""
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSONFile(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(b)+"\n")
}
