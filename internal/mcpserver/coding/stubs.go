package coding

import (
	"github.com/sudocode/sudocode/internal/workspace"
)

// notYet is the answer of a tool whose implementation has not landed.
func notYet(name string) error {
	return workspace.Errorf("INTERNAL_ERROR", map[string]any{"tool": name},
		"%s is not available in this version of coding-tools-mcp yet", name)
}
