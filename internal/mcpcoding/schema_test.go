package mcpcoding_test

import (
	"os"
	"testing"

	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/mcpx/schematest"
)

// Every tool enforces its input schema: a call without a required
// parameter, or with one of the wrong type, is refused before the tool
// runs (a refused apply_patch writes nothing).
func TestSchemaRefusesBadArguments(t *testing.T) {
	dir := t.TempDir()
	cs := connectHTTPAt(t, dir, mcpcoding.Options{Version: "test", ViewImage: true})
	schematest.RefusesBadArguments(t, cs)
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("refused calls wrote into the workspace: %v %v", entries, err)
	}
}
