package mcpcoding_test

import (
	"encoding/base64"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

// closeObjects makes every object schema that declares properties refuse the
// others. The published schemas stay open
// (docs/coding-tools.md#output-schemas); the tests validate against the closed
// form, so a field named differently in a result and in its schema fails,
// whichever side was renamed.
func closeObjects(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Properties) > 0 {
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	}
	for _, p := range s.Properties {
		closeObjects(p)
	}
	for _, d := range s.Defs {
		closeObjects(d)
	}
	closeObjects(s.Items)
}

// TestEveryToolConformsToItsOutputSchema calls every tool of the catalog
// for real — files, a git repository with changes, a PNG, a command and
// its session — in its success and failure shapes, and validates each
// structuredContent against the tool's published outputSchema, closed. A
// tool the test does not call fails it.
func TestEveryToolConformsToItsOutputSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
	wstest.Write(t, dir, map[string]string{"a.txt": "one\ntwo needle\n", "src/b.go": "package b\n", "pic.png": string(png)})
	testkit.Git(t, dir, "init", "-q")
	testkit.Git(t, dir, "add", ".")
	testkit.Git(t, dir, "commit", "-q", "-m", "init")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo needle\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newToolSession(t, connectHTTPAt(t, dir, mcpcoding.Options{ViewImage: true}), dir)

	called := map[string]bool{}
	ok := func(name string, args map[string]any) map[string]any {
		t.Helper()
		called[name] = true
		return s.ok(t, name, args)
	}
	fail := func(name string, args map[string]any, code string) {
		t.Helper()
		called[name] = true
		wantCode(t, s.call(t, name, args), code)
	}
	ok("read_file", map[string]any{"path": "a.txt", "max_bytes": 5})
	fail("read_file", map[string]any{"path": "missing.txt"}, "NOT_FOUND")
	ok("list_dir", map[string]any{"recursive": true, "max_depth": 3})
	fail("list_dir", map[string]any{"path": "a.txt"}, "NOT_A_DIRECTORY")
	ok("list_files", map[string]any{"patterns": []any{"**/*.go"}})
	ok("search_text", map[string]any{"query": "needle", "context_lines": 1})
	fail("search_text", map[string]any{"query": "(", "regex": true}, "INVALID_ARGUMENT")
	ok("apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: src/b.go\n*** Move to: src/c.go\n@@\n-package b\n+package c\n*** End Patch\n"})
	fail("apply_patch", map[string]any{"patch": "*** Begin Patch\n*** End Patch\n"}, "PATCH_FAILED")
	ok("git_status", nil)
	ok("git_diff", map[string]any{"staged": true, "max_bytes": 10})
	fail("git_diff", map[string]any{"path": "/etc"}, "ABSOLUTE_PATH_DENIED")
	ok("exec_command", map[string]any{"cmd": "echo hi; echo err >&2"})
	fail("exec_command", map[string]any{"cmd": "curl http://example.com"}, "PERMISSION_REQUIRED")
	fail("exec_command", map[string]any{"cmd": "true", "workdir": "a.txt"}, "NOT_A_DIRECTORY")
	run := ok("exec_command", map[string]any{"cmd": "cat", "tty": true, "yield_time_ms": 0})
	id, _ := run["session_id"].(string)
	if id == "" {
		t.Fatalf("no session: %v", run)
	}
	ok("write_stdin", map[string]any{"session_id": id, "chars": "x\n", "yield_time_ms": 200})
	ok("kill_session", map[string]any{"session_id": id, "signal": "KILL"})
	fail("write_stdin", map[string]any{"session_id": id}, "SESSION_NOT_FOUND")
	fail("kill_session", map[string]any{"session_id": id}, "SESSION_NOT_FOUND")
	fail("request_permissions", map[string]any{"tool_name": "exec_command", "permission": "network", "reason": "r",
		"arguments": map[string]any{"cmd": "curl"}}, "ELICITATION_UNSUPPORTED")
	ok("view_image", map[string]any{"path": "pic.png"})
	ok("view_image", map[string]any{"path": "pic.png", "output": "data_url"})
	fail("view_image", map[string]any{"path": "a.txt"}, "BINARY_FILE")

	// The dangerous grant, on a server of its own.
	d := newToolSession(t, connectHTTPAt(t, dir, mcpcoding.Options{Dangerous: true}), dir)
	d.ok(t, "request_permissions", map[string]any{"tool_name": "exec_command", "permission": "network", "reason": "r",
		"arguments": map[string]any{}})

	for name := range s.schemas {
		if !called[name] {
			t.Errorf("%s is in the catalog but not called here", name)
		}
	}
}

// TestClosedSchemaCatchesARename: the closed schema refuses a result
// whose field is renamed, and one whose nested field is.
func TestClosedSchemaCatchesARename(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wstest.Write(t, dir, map[string]string{"a.txt": "x\n"})
	s := newToolSession(t, connectHTTPAt(t, dir, mcpcoding.Options{}), dir)
	sc := s.ok(t, "list_dir", nil)
	renamed := maps.Clone(sc)
	renamed["entry_list"] = renamed["entries"]
	delete(renamed, "entries")
	if err := s.schemas["list_dir"].Validate(renamed); err == nil {
		t.Fatal("a renamed top-level field passed the output schema")
	}
	entry := maps.Clone(sc["entries"].([]any)[0].(map[string]any))
	entry["size"] = entry["size_bytes"]
	delete(entry, "size_bytes")
	nested := maps.Clone(sc)
	nested["entries"] = []any{entry}
	if err := s.schemas["list_dir"].Validate(nested); err == nil {
		t.Fatal("a renamed entry field passed the output schema")
	}
}

func wantCode(t *testing.T, sc map[string]any, code string) {
	t.Helper()
	if e, _ := sc["error"].(map[string]any); sc["ok"] != false || e["code"] != code {
		t.Fatalf("want %s, got %v", code, sc)
	}
}
