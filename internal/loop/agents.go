package loop

import (
	"strings"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

// agentNames are the agents as a person names them: the values of the
// CLI's --agent, which the page shows too, by the orchestrator's tool kind.
var agentNames = map[string]string{
	agent.ToolClaudeCode: "claude",
	agent.ToolCodex:      "codex",
	agent.ToolGemini:     "gemini",
	agent.ToolOpenCode:   "opencode",
	agent.ToolCommand:    "command",
}

// AgentName is the name --agent gives the agent of tool kind tool (the
// kind in lower case for one it does not know).
func AgentName(tool string) string {
	if n, ok := agentNames[strings.ToUpper(tool)]; ok {
		return n
	}
	return strings.ToLower(tool)
}
