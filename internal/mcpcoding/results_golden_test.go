package mcpcoding_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/goldentest"
	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

// TestResultsGolden pins the text mirror of deterministic results, byte
// for byte: the names, the omissions and the order of the keys a client
// reads. Refresh with:
//
//	go test ./internal/mcpcoding -run TestResultsGolden -update
func TestResultsGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
	wstest.Write(t, dir, map[string]string{"a.txt": "one\ntwo needle\nthree\n", "src/b.go": "package b\n// needle\n",
		"bin.dat": "\x00\x01", "pic.png": string(png)})
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, f := range []string{"a.txt", "src/b.go", "bin.dat", "pic.png"} {
		if err := os.Chtimes(filepath.Join(dir, f), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	cs := connectHTTPAt(t, dir, mcpcoding.Options{ViewImage: true})
	calls := []struct {
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
	}{
		{"read_file", map[string]any{"path": "a.txt", "max_bytes": 5}},
		{"read_file", map[string]any{"path": "bin.dat"}},
		{"read_file", map[string]any{"path": "/etc/hosts"}},
		{"list_files", map[string]any{"patterns": []any{"**/*.go", "*.txt"}}},
		{"search_text", map[string]any{"query": "needle", "context_lines": 1}},
		{"search_text", map[string]any{"query": "(", "regex": true}},
		{"apply_patch", map[string]any{"dry_run": true,
			"patch": "*** Begin Patch\n*** Update File: src/b.go\n*** Move to: src/c.go\n@@\n-package b\n+package c\n*** End Patch\n"}},
		{"apply_patch", map[string]any{"patch": "*** Begin Patch\n*** End Patch\n"}},
		{"exec_command", map[string]any{"cmd": "curl http://example.com"}},
		{"exec_command", map[string]any{"cmd": "true", "workdir": "a.txt"}},
		{"write_stdin", map[string]any{"session_id": "none"}},
		{"request_permissions", map[string]any{"tool_name": "exec_command", "permission": "network", "reason": "r",
			"arguments": map[string]any{"cmd": "curl"}}},
		{"view_image", map[string]any{"path": "pic.png", "output": "data_url"}},
	}
	var got []any
	for _, c := range calls {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
		if err != nil {
			t.Fatalf("%s: %v", c.Tool, err)
		}
		got = append(got, map[string]any{"call": c, "text": res.Content[len(res.Content)-1].(*mcp.TextContent).Text})
	}
	goldentest.JSON(t, "testdata/results.golden.json", got)
}
