package mcpagent_test

import (
	"testing"

	"github.com/sudocode/sudocode/internal/mcpx/schematest"
)

// Every tool enforces its input schema: a call without a required
// parameter, or with one of the wrong type, is refused before the tool
// runs, and no task is created.
func TestSchemaRefusesBadArguments(t *testing.T) {
	f := newFixture(t)
	schematest.RefusesBadArguments(t, f.cs)
	if tasks, err := f.orch.List(t.Context()); err != nil || len(tasks) != 0 {
		t.Errorf("refused calls created tasks: %v %v", tasks, err)
	}
}
