package mcpcoding_test

import (
	"testing"

	"github.com/sudocode/sudocode/internal/mcpcoding"
)

// The profile reads only an initialize's protocol version: client info
// and capabilities of any shape are accepted.
func TestInitializeTakesAnyClientInfo(t *testing.T) {
	t.Parallel()
	transports(t, mcpcoding.Options{}, func(t *testing.T, c client) {
		call(t, c, "initialize", map[string]any{"protocolVersion": "2025-06-18", "clientInfo": 5, "capabilities": []any{"x"}}).resultMap(t)
		call(t, c, "tools/list", nil).resultMap(t)
	})
}
