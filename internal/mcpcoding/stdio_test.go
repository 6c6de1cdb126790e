package mcpcoding_test

import (
	"testing"

	"github.com/sudocode/sudocode/internal/mcpcoding"
)

// A client that sends its first requests right after initialize, without
// waiting for its answer, finds the session initialized: the stdio
// transport answers an initialize before it reads the next line.
func TestStdioInitializeBeforeTheNextLine(t *testing.T) {
	t.Parallel()
	c := newStdio(t, newServer(t, mcpcoding.Options{}))
	c.write(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	for range 2 {
		decode(t, []byte(c.line(t))).resultMap(t)
	}
}
