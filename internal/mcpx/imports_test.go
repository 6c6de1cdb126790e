package mcpx

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoWorkspaceDependency: the MCP plumbing every server shares does not
// depend on the coding tools' workspace package (it needs only the secret
// detector, which lives on its own), directly or through another package.
func TestNoWorkspaceDependency(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasSuffix(dep, "/internal/workspace") || strings.Contains(dep, "/internal/workspace/") {
			t.Errorf("mcpx depends on %s", dep)
		}
	}
}
