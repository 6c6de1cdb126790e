package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/modelsim"
)

// The install hints pin the versions the real-CLI tests run and the README's
// table of agent CLIs gives.
func TestAgentInstallHintsArePinned(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	tested := map[string]string{
		"claude":   modelsim.ClaudePackage + "@" + modelsim.ClaudeVersion,
		"codex":    modelsim.CodexPackage + "@" + modelsim.CodexVersion,
		"gemini":   modelsim.GeminiPackage + "@" + modelsim.GeminiVersion,
		"opencode": modelsim.OpenCodePackage + "@" + modelsim.OpenCodeVersion,
	}
	for _, a := range agentCLIs {
		if a.bin == "" {
			continue
		}
		if a.pkg != tested[a.name] {
			t.Errorf("%s installs %s; the tests run %s", a.name, a.pkg, tested[a.name])
		}
		if !strings.Contains(string(readme), "`"+a.pkg+"`") {
			t.Errorf("the README does not pin %s", a.pkg)
		}
	}
}
