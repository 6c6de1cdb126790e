package mcpcoding

import (
	"context"
	"testing"

	"github.com/sudocode/sudocode/internal/workspace"
)

// testServer is a server over a fresh workspace, closed with the test.
func testServer(t *testing.T, opts Options) *Server {
	t.Helper()
	root, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := New(root, opts)
	t.Cleanup(func() { s.Close(context.Background()); root.FS.Close() })
	return s
}
