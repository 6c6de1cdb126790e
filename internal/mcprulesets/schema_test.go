package mcprulesets_test

import (
	"testing"

	"github.com/sudocode/sudocode/internal/mcpx/schematest"
)

// Every tool enforces its input schema: a call without a required
// parameter, or with one of the wrong type, is refused before the tool
// runs, and the library is unchanged.
func TestSchemaRefusesBadArguments(t *testing.T) {
	forEachStore(t, func(t *testing.T, f *fixture) {
		createPython(f)
		before, _ := f.call("list_rulesets", map[string]any{})
		schematest.RefusesBadArguments(t, f.cs)
		if after, _ := f.call("list_rulesets", map[string]any{}); after != before {
			t.Errorf("refused calls changed the library:\n%s\nthen\n%s", before, after)
		}
	})
}
