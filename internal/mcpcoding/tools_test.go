package mcpcoding_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

// The file tools end to end: the official SDK client calls every tool over
// Streamable HTTP (an in-process server) and over stdio (the built binary), on
// the same workspace contents, and every result is checked against the
// profile's result shape (docs/coding-tools.md#results,
// docs/coding-tools.md#errors) and the tool's published outputSchema before its
// fields are.

// toolTransport connects the SDK client to a server over a workspace.
type toolTransport struct {
	name    string
	connect func(t *testing.T, dir string) *mcp.ClientSession
}

var toolTransports = []toolTransport{
	{"http", func(t *testing.T, dir string) *mcp.ClientSession {
		return connectHTTPAt(t, dir, mcpcoding.Options{ViewImage: true})
	}},
	{"stdio", func(t *testing.T, dir string) *mcp.ClientSession {
		cs, _ := connectBinaryAt(t, dir, nil)
		return cs
	}},
}

// toolSession is a connected client, the workspace it serves and the
// resolved output schemas of its catalog, closed (closeObjects) so that a
// result field the schema does not declare fails validation.
type toolSession struct {
	cs      *mcp.ClientSession
	dir     string
	schemas map[string]*jsonschema.Resolved
}

func newToolSession(t *testing.T, cs *mcp.ClientSession, dir string) *toolSession {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &toolSession{cs: cs, dir: dir, schemas: map[string]*jsonschema.Resolved{}}
	for _, tl := range res.Tools {
		b, err := json.Marshal(tl.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var sch jsonschema.Schema
		if err := json.Unmarshal(b, &sch); err != nil {
			t.Fatalf("%s: outputSchema %s: %v", tl.Name, b, err)
		}
		closeObjects(&sch)
		rs, err := sch.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: outputSchema does not resolve: %v", tl.Name, err)
		}
		s.schemas[tl.Name] = rs
	}
	return s
}

// call calls a tool, checks the result invariants (text mirror equal to
// structuredContent, isError == !ok, warnings, the error object's keys)
// and validates structuredContent against the tool's outputSchema; it
// returns structuredContent.
func (s *toolSession) call(t *testing.T, name string, args map[string]any) map[string]any {
	t.Helper()
	sc := sdkCall(t, s.cs, name, args)
	rs := s.schemas[name]
	if rs == nil {
		t.Fatalf("%s is not in tools/list", name)
	}
	if err := rs.Validate(sc); err != nil {
		t.Fatalf("%s: structuredContent does not conform to the outputSchema: %v\n%v", name, err, sc)
	}
	return sc
}

// ok calls a tool that must succeed.
func (s *toolSession) ok(t *testing.T, name string, args map[string]any) map[string]any {
	t.Helper()
	sc := s.call(t, name, args)
	if sc["ok"] != true {
		t.Fatalf("%s %v failed: %v", name, args, sc["error"])
	}
	return sc
}

// fail calls a tool that must fail with code; it returns the error object.
func (s *toolSession) fail(t *testing.T, name string, args map[string]any, code string) map[string]any {
	t.Helper()
	sc := s.call(t, name, args)
	return wantToolError(t, sc, code)
}

// codeCategories are the profile's categories of the codes raised here.
var codeCategories = map[string]string{
	"INVALID_ARGUMENT":       "validation",
	"PATH_OUTSIDE_WORKSPACE": "security",
	"ABSOLUTE_PATH_DENIED":   "security",
	"SYMLINK_ESCAPE":         "security",
	"NOT_FOUND":              "not_found",
	"NOT_A_DIRECTORY":        "validation",
	"IS_DIRECTORY":           "validation",
	"BINARY_FILE":            "validation",
	"UNSUPPORTED_ENCODING":   "validation",
	"PATCH_FAILED":           "validation",
	"PERMISSION_DENIED":      "permission",
	"INTERNAL_ERROR":         "internal",
}

func wantToolError(t *testing.T, sc map[string]any, code string) map[string]any {
	t.Helper()
	if sc["ok"] != false {
		t.Fatalf("want %s, got success %v", code, sc)
	}
	e := sc["error"].(map[string]any)
	if e["code"] != code {
		t.Fatalf("error code %v (%v), want %s", e["code"], e["message"], code)
	}
	if cat := codeCategories[code]; e["category"] != cat {
		t.Fatalf("%s: category %v, want %s", code, e["category"], cat)
	}
	if e["retryable"] != false {
		t.Fatalf("%s: retryable %v", code, e["retryable"])
	}
	if msg, _ := e["message"].(string); strings.TrimSpace(msg) == "" {
		t.Fatalf("%s: empty message", code)
	}
	return e
}

// toolCase is one check against a connected session.
type toolCase struct {
	name string
	run  func(t *testing.T, s *toolSession)
}

// runToolCases runs the cases in order over every transport, each
// transport in parallel on the workspace setup returns.
func runToolCases(t *testing.T, setup func(t *testing.T) string, cases []toolCase) {
	t.Helper()
	for _, tr := range toolTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			dir := setup(t)
			s := newToolSession(t, tr.connect(t, dir), dir)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) { c.run(t, s) })
			}
		})
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func readWS(t *testing.T, s *toolSession, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func existsWS(s *toolSession, rel string) bool {
	_, err := os.Lstat(filepath.Join(s.dir, filepath.FromSlash(rel)))
	return err == nil
}

// num is a JSON number as an int.
func num(t *testing.T, v any) int {
	t.Helper()
	f, ok := v.(float64)
	if !ok || f != float64(int(f)) {
		t.Fatalf("%#v is not an integer", v)
	}
	return int(f)
}

func strs(t *testing.T, v any) []string {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("%#v is not an array", v)
	}
	out := make([]string, len(list))
	for i, x := range list {
		s, ok := x.(string)
		if !ok {
			t.Fatalf("%#v is not a string", x)
		}
		out[i] = s
	}
	return out
}

func objects(t *testing.T, v any) []map[string]any {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("%#v is not an array", v)
	}
	out := make([]map[string]any, len(list))
	for i, x := range list {
		out[i] = x.(map[string]any)
	}
	return out
}

// field collects one string field of every object.
func field(objs []map[string]any, key string) []string {
	out := []string{}
	for _, o := range objs {
		s, _ := o[key].(string)
		out = append(out, s)
	}
	return out
}

func wantWarning(t *testing.T, sc map[string]any, sub string) {
	t.Helper()
	for _, w := range strs(t, sc["warnings"]) {
		if strings.Contains(w, sub) {
			return
		}
	}
	t.Fatalf("no warning containing %q in %v", sub, sc["warnings"])
}

func wantFields(t *testing.T, sc map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		got := sc[k]
		if n, isInt := v.(int); isInt {
			v = float64(n)
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("%s = %#v, want %#v", k, got, v)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

func wantRFC3339Z(t *testing.T, v any) {
	t.Helper()
	s, _ := v.(string)
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil || !strings.HasSuffix(s, "Z") {
		t.Fatalf("timestamp %q is not RFC 3339 UTC", s)
	}
}

// The read-only fixture: read_file, list_dir, list_files and search_text
// all run on one git work tree with hidden, excluded, git-ignored, binary,
// non-UTF-8 and symlinked content, and a directory outside the workspace
// that two symlinks lead to.

const mainGo = "package main\n\n// Hello World\nfunc main() {\n\tprintln(\"hello again\")\n\tx := \"HELLO\"\n\t_ = x // é hello\n}\n"

func readOnlyFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	outside := t.TempDir()
	wstest.Write(t, outside, map[string]string{"secret.txt": "TOPSECRET needle-outside\n"})
	var lines strings.Builder
	for i := 1; i <= 2500; i++ {
		lines.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	wstest.Write(t, dir, map[string]string{
		"hello.txt":                 "line1\nline2\nline3\n",
		"bom_crlf.txt":              "\ufeffalpha\r\nbeta\r\n",
		"lines.txt":                 lines.String(),
		"long.txt":                  strings.Repeat("x", 300) + "\ny\n",
		"utf8long.txt":              strings.Repeat("é", 100) + "\n",
		"bin.dat":                   "needle\x00binary\n",
		"latin1.txt":                "needle caf\xe9\n",
		"late_bad.txt":              strings.Repeat("ok\n", 3000) + "\xff\n",
		"dir/a.go":                  "package dir // needle\n",
		"dir/sub/b.go":              "package sub\n",
		"dir/sub/deep/c.go":         "package deep\n",
		"src/main.go":               mainGo,
		"wide/w1.txt":               "1",
		"wide/w2.txt":               "2",
		"wide/w3.txt":               "3",
		".hidden/h.txt":             "needle\n",
		"node_modules/pkg/index.js": "needle\n",
		"ignored.log":               "needle\n",
		"gen/out.txt":               "needle\n",
		".gitignore":                "ignored.log\ngen/\n",
	})
	symlink(t, outside, filepath.Join(dir, "escape"))
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(dir, "escape_file"))
	symlink(t, "hello.txt", filepath.Join(dir, "inlink.txt"))
	symlink(t, "nope.txt", filepath.Join(dir, "dangling"))
	testkit.Git(t, dir, "init", "-q")
	return dir
}

// sharedFixture builds the fixture once for every transport of a test.
func sharedFixture(t *testing.T) func(*testing.T) string {
	dir := readOnlyFixture(t)
	return func(*testing.T) string { return dir }
}

func TestToolsReadFile(t *testing.T) {
	t.Parallel()
	runToolCases(t, sharedFixture(t), []toolCase{
		{"whole file", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "read_file", map[string]any{"path": "hello.txt"})
			wantFields(t, sc, map[string]any{"path": "hello.txt", "content": "line1\nline2\nline3\n", "encoding": "utf-8",
				"start_line": 1, "end_line": 3, "total_lines": 3, "total_bytes": 18, "bytes_read": 18, "truncated": false,
				"truncated_by": nil, "output_lines": 3, "output_bytes": 18, "next_start_line": nil, "warnings": []any{}})
		}},
		{"slices", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "read_file", map[string]any{"path": "hello.txt", "start_line": 2, "end_line": 2})
			wantFields(t, sc, map[string]any{"content": "line2\n", "start_line": 2, "end_line": 2, "output_lines": 1,
				"total_lines": 3, "truncated": false, "next_start_line": nil})
			sc = s.ok(t, "read_file", map[string]any{"path": "hello.txt", "start_line": 2})
			wantFields(t, sc, map[string]any{"content": "line2\nline3\n", "end_line": 3, "output_lines": 2, "bytes_read": 12})
			// end before start, and start past the end: empty, not errors.
			sc = s.ok(t, "read_file", map[string]any{"path": "hello.txt", "start_line": 3, "end_line": 2})
			wantFields(t, sc, map[string]any{"content": "", "end_line": 2, "output_lines": 0, "truncated": false, "next_start_line": nil})
			sc = s.ok(t, "read_file", map[string]any{"path": "hello.txt", "start_line": 10})
			wantFields(t, sc, map[string]any{"content": "", "end_line": 3, "output_lines": 0, "truncated": false, "next_start_line": nil})
			sc = s.ok(t, "read_file", map[string]any{"path": "hello.txt", "end_line": 99})
			wantFields(t, sc, map[string]any{"end_line": 3, "output_lines": 3, "truncated": false})
		}},
		{"truncated by lines", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "read_file", map[string]any{"path": "lines.txt"})
			wantFields(t, sc, map[string]any{"truncated": true, "truncated_by": "lines", "output_lines": 2000, "end_line": 2000,
				"next_start_line": 2001, "total_lines": 2500})
			if c := sc["content"].(string); !strings.HasPrefix(c, "line 1\n") || !strings.HasSuffix(c, "\nline 2000\n") {
				t.Fatalf("content ends %q", c[len(c)-20:])
			}
			wantWarning(t, sc, "truncated")
			sc = s.ok(t, "read_file", map[string]any{"path": "lines.txt", "start_line": 2001})
			wantFields(t, sc, map[string]any{"truncated": false, "truncated_by": nil, "output_lines": 500, "end_line": 2500,
				"next_start_line": nil})
		}},
		{"truncated by bytes", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "read_file", map[string]any{"path": "hello.txt", "max_bytes": 13})
			wantFields(t, sc, map[string]any{"content": "line1\nline2\n", "truncated": true, "truncated_by": "bytes",
				"output_lines": 2, "output_bytes": 12, "bytes_read": 12, "end_line": 2, "next_start_line": 3, "total_bytes": 18})
			wantWarning(t, sc, "truncated")
			// The first line alone is too long: its UTF-8-safe prefix.
			sc = s.ok(t, "read_file", map[string]any{"path": "long.txt", "max_bytes": 100})
			wantFields(t, sc, map[string]any{"content": strings.Repeat("x", 100), "truncated": true, "truncated_by": "bytes",
				"output_lines": 1, "end_line": 1, "next_start_line": 2})
			wantWarning(t, sc, "first line exceeds")
			sc = s.ok(t, "read_file", map[string]any{"path": "utf8long.txt", "max_bytes": 5})
			wantFields(t, sc, map[string]any{"content": "éé", "output_bytes": 4, "truncated_by": "bytes", "output_lines": 1})
		}},
		{"BOM and CRLF kept", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "read_file", map[string]any{"path": "bom_crlf.txt"})
			wantFields(t, sc, map[string]any{"content": "\ufeffalpha\r\nbeta\r\n", "total_lines": 2, "output_bytes": 16})
			sc = s.ok(t, "read_file", map[string]any{"path": "bom_crlf.txt", "start_line": 2})
			wantFields(t, sc, map[string]any{"content": "beta\r\n"})
		}},
		{"symlink inside reads its target", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "read_file", map[string]any{"path": "inlink.txt"})
			wantFields(t, sc, map[string]any{"path": "hello.txt", "content": "line1\nline2\nline3\n"})
			sc = s.ok(t, "read_file", map[string]any{"path": "./dir//sub/b.go"})
			wantFields(t, sc, map[string]any{"path": "dir/sub/b.go"})
		}},
		{"IS_DIRECTORY", func(t *testing.T, s *toolSession) {
			s.fail(t, "read_file", map[string]any{"path": "dir"}, "IS_DIRECTORY")
			s.fail(t, "read_file", map[string]any{"path": "."}, "IS_DIRECTORY")
		}},
		{"BINARY_FILE", func(t *testing.T, s *toolSession) {
			s.fail(t, "read_file", map[string]any{"path": "bin.dat"}, "BINARY_FILE")
		}},
		{"UNSUPPORTED_ENCODING", func(t *testing.T, s *toolSession) {
			s.fail(t, "read_file", map[string]any{"path": "latin1.txt"}, "UNSUPPORTED_ENCODING")
			// Anywhere in the file, even past the selected lines.
			s.fail(t, "read_file", map[string]any{"path": "late_bad.txt", "end_line": 1}, "UNSUPPORTED_ENCODING")
		}},
		{"NOT_FOUND", func(t *testing.T, s *toolSession) {
			e := s.fail(t, "read_file", map[string]any{"path": "missing.txt"}, "NOT_FOUND")
			if e["details"].(map[string]any)["path"] != "missing.txt" {
				t.Fatalf("details %v", e["details"])
			}
			s.fail(t, "read_file", map[string]any{"path": "dangling"}, "NOT_FOUND")
			s.fail(t, "read_file", map[string]any{"path": "dir/nope/x.go"}, "NOT_FOUND")
		}},
		{"ABSOLUTE_PATH_DENIED", func(t *testing.T, s *toolSession) {
			e := s.fail(t, "read_file", map[string]any{"path": filepath.Join(s.dir, "hello.txt")}, "ABSOLUTE_PATH_DENIED")
			if !strings.Contains(e["message"].(string), "absolute path denied") {
				t.Fatalf("message %q", e["message"])
			}
			s.fail(t, "read_file", map[string]any{"path": "/etc/passwd"}, "ABSOLUTE_PATH_DENIED")
			s.fail(t, "read_file", map[string]any{"path": `C:\x.txt`}, "ABSOLUTE_PATH_DENIED")
		}},
		{"PATH_OUTSIDE_WORKSPACE", func(t *testing.T, s *toolSession) {
			s.fail(t, "read_file", map[string]any{"path": "../x.txt"}, "PATH_OUTSIDE_WORKSPACE")
			// Rejected before touching the filesystem, even when it would
			// land inside.
			s.fail(t, "read_file", map[string]any{"path": "dir/../hello.txt"}, "PATH_OUTSIDE_WORKSPACE")
		}},
		{"SYMLINK_ESCAPE", func(t *testing.T, s *toolSession) {
			for _, p := range []string{"escape_file", "escape/secret.txt", "escape/missing.txt"} {
				sc := s.call(t, "read_file", map[string]any{"path": p})
				wantToolError(t, sc, "SYMLINK_ESCAPE")
				if b, _ := json.Marshal(sc); strings.Contains(string(b), "TOPSECRET") {
					t.Fatalf("%s: outside content leaked: %s", p, b)
				}
			}
		}},
		{"INVALID_ARGUMENT for a NUL byte", func(t *testing.T, s *toolSession) {
			s.fail(t, "read_file", map[string]any{"path": "hello.txt\x00.png"}, "INVALID_ARGUMENT")
		}},
		{"schema violations are protocol errors", func(t *testing.T, s *toolSession) {
			for _, args := range []map[string]any{{"path": ""}, {}, {"path": "hello.txt", "start_line": 0},
				{"path": "hello.txt", "max_bytes": 1048577}, {"path": "hello.txt", "encoding": "latin-1"}} {
				if _, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: args}); err == nil {
					t.Errorf("%v accepted", args)
				}
			}
		}},
	})
}

// rootVisible are the names list_dir shows at the shared fixture's root.
var rootVisible = []string{"bin.dat", "bom_crlf.txt", "dangling", "dir", "escape", "escape_file", "hello.txt", "inlink.txt",
	"late_bad.txt", "latin1.txt", "lines.txt", "long.txt", "src", "utf8long.txt", "wide"}

func TestToolsListDir(t *testing.T) {
	t.Parallel()
	runToolCases(t, sharedFixture(t), []toolCase{
		{"entries", listDirEntries},
		{"a sub-directory", listDirSubdir},
		{"recursion and max_depth", listDirRecursion},
		{"hidden and ignored filters", listDirFilters},
		{"sort", listDirSort},
		{"truncation", limitCase("list_dir", "max_entries", "entries", "name", rootVisible, "entry limit reached")},
		{"NOT_A_DIRECTORY", listDirNotADirectory},
		{"path errors", pathErrors("list_dir", nil, map[string]string{"missing": "NOT_FOUND", "/tmp": "ABSOLUTE_PATH_DENIED",
			"..": "PATH_OUTSIDE_WORKSPACE", "escape": "SYMLINK_ESCAPE", "dir\x00": "INVALID_ARGUMENT"})},
	})
}

// listDirEntries checks the fields of the root's entries.
func listDirEntries(t *testing.T, s *toolSession) {
	sc := s.ok(t, "list_dir", nil)
	wantFields(t, sc, map[string]any{"path": ".", "truncated": false})
	ents := objects(t, sc["entries"])
	if got := field(ents, "name"); !slices.Equal(got, rootVisible) {
		t.Fatalf("names %v\nwant  %v", got, rootVisible)
	}
	byName := map[string]map[string]any{}
	for _, e := range ents {
		byName[e["name"].(string)] = e
		if e["path"] != e["name"] {
			t.Errorf("path %v for %v", e["path"], e["name"])
		}
		wantRFC3339Z(t, e["modified"])
		if e["is_hidden"] != false || e["is_ignored"] != false {
			t.Errorf("%v: hidden/ignored flags", e)
		}
	}
	wantFields(t, byName["hello.txt"], map[string]any{"type": "file", "size_bytes": 18})
	wantFields(t, byName["dir"], map[string]any{"type": "directory"})
	wantFields(t, byName["inlink.txt"], map[string]any{"type": "symlink", "symlink_target": "hello.txt", "size_bytes": len("hello.txt")})
	wantFields(t, byName["dangling"], map[string]any{"type": "symlink", "symlink_target": "nope.txt"})
	for _, n := range []string{"escape", "escape_file"} {
		e := byName[n]
		if e["type"] != "symlink" {
			t.Errorf("%s: type %v", n, e["type"])
		}
		if tg, has := e["symlink_target"]; has && !strings.HasPrefix(tg.(string), "/") {
			t.Errorf("%s: symlink_target %v", n, tg)
		}
	}
}

// listDirSubdir lists a sub-directory.
func listDirSubdir(t *testing.T, s *toolSession) {
	sc := s.ok(t, "list_dir", map[string]any{"path": "dir"})
	wantFields(t, sc, map[string]any{"path": "dir"})
	if got := field(objects(t, sc["entries"]), "path"); !slices.Equal(got, []string{"dir/a.go", "dir/sub"}) {
		t.Fatalf("paths %v", got)
	}
}

// listDirRecursion checks recursive, max_depth, and what a recursive listing never enters.
func listDirRecursion(t *testing.T, s *toolSession) {
	paths := func(args map[string]any) []string {
		got := field(objects(t, s.ok(t, "list_dir", args)["entries"]), "path")
		slices.Sort(got)
		return got
	}
	flat := []string{"dir/a.go", "dir/sub"}
	if got := paths(map[string]any{"path": "dir", "recursive": true}); !slices.Equal(got, flat) {
		t.Fatalf("recursive with depth 1: %v", got)
	}
	if got := paths(map[string]any{"path": "dir", "max_depth": 3}); !slices.Equal(got, flat) {
		t.Fatalf("max_depth without recursive: %v", got)
	}
	if got, want := paths(map[string]any{"path": "dir", "recursive": true, "max_depth": 2}),
		[]string{"dir/a.go", "dir/sub", "dir/sub/b.go", "dir/sub/deep"}; !slices.Equal(got, want) {
		t.Fatalf("depth 2: %v", got)
	}
	if got, want := paths(map[string]any{"path": "dir", "recursive": true, "max_depth": 3}),
		[]string{"dir/a.go", "dir/sub", "dir/sub/b.go", "dir/sub/deep", "dir/sub/deep/c.go"}; !slices.Equal(got, want) {
		t.Fatalf("depth 3: %v", got)
	}
	// Never into symlinks, never into filtered directories.
	all := paths(map[string]any{"recursive": true, "max_depth": 20})
	for _, p := range all {
		if strings.HasPrefix(p, "escape/") || strings.HasPrefix(p, "gen/") || strings.HasPrefix(p, "node_modules") || strings.HasPrefix(p, ".") {
			t.Fatalf("recursive listing shows %s", p)
		}
	}
	if !slices.Contains(all, "src/main.go") || !slices.Contains(all, "dir/sub/deep/c.go") {
		t.Fatalf("recursive listing %v", all)
	}
}

// listDirFilters checks include_hidden and include_ignored.
func listDirFilters(t *testing.T, s *toolSession) {
	names := func(args map[string]any) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, e := range objects(t, s.ok(t, "list_dir", args)["entries"]) {
			out[e["name"].(string)] = e
		}
		return out
	}
	h := names(map[string]any{"include_hidden": true})
	for _, n := range []string{".hidden", ".gitignore"} {
		if h[n] == nil || h[n]["is_hidden"] != true || h[n]["is_ignored"] != false {
			t.Errorf("include_hidden: %s = %v", n, h[n])
		}
	}
	for _, n := range []string{".git", "node_modules", "ignored.log", "gen"} {
		if h[n] != nil {
			t.Errorf("include_hidden shows %s", n)
		}
	}
	ig := names(map[string]any{"include_ignored": true})
	for _, n := range []string{"node_modules", "ignored.log", "gen"} {
		if ig[n] == nil || ig[n]["is_ignored"] != true {
			t.Errorf("include_ignored: %s = %v", n, ig[n])
		}
	}
	if ig[".git"] != nil || ig[".hidden"] != nil {
		t.Error("include_ignored shows hidden names")
	}
	if ig["hello.txt"]["is_ignored"] != false {
		t.Error("hello.txt is_ignored")
	}
	both := names(map[string]any{"include_hidden": true, "include_ignored": true})
	if both[".git"] == nil || both[".git"]["is_ignored"] != true || both[".git"]["is_hidden"] != true {
		t.Errorf(".git with both opt-ins: %v", both[".git"])
	}
	// A hidden directory named explicitly is listed.
	sc := s.ok(t, "list_dir", map[string]any{"path": ".hidden"})
	if got := field(objects(t, sc["entries"]), "path"); !slices.Equal(got, []string{".hidden/h.txt"}) {
		t.Fatalf(".hidden lists %v", got)
	}
}

// listDirSort checks the sort orders.
func listDirSort(t *testing.T, s *toolSession) {
	sc := s.ok(t, "list_dir", map[string]any{"sort": "type"})
	var types []string
	for _, e := range objects(t, sc["entries"]) {
		types = append(types, e["type"].(string))
	}
	if !slices.IsSorted(types) || types[0] != "directory" || types[len(types)-1] != "symlink" {
		t.Fatalf("sort by type: %v", types)
	}
	s.ok(t, "list_dir", map[string]any{"sort": "modified"})
}

// limitCase is a case of a tool's result cap (limit): at 2 the list
// (list, its items' key field) is the first two of first, truncated, with
// warning; at 3, what the directory wide holds, it is whole.
func limitCase(tool, limit, list, key string, first []string, warning string) func(t *testing.T, s *toolSession) {
	return func(t *testing.T, s *toolSession) {
		sc := s.ok(t, tool, map[string]any{limit: 2})
		wantFields(t, sc, map[string]any{"truncated": true})
		if got := field(objects(t, sc[list]), key); !slices.Equal(got, first[:2]) {
			t.Fatalf("first two %v", got)
		}
		wantWarning(t, sc, warning)
		// Exactly enough room: not truncated.
		sc = s.ok(t, tool, map[string]any{"path": "wide", limit: 3})
		wantFields(t, sc, map[string]any{"truncated": false, "warnings": []any{}})
		if n := len(objects(t, sc[list])); n != 3 {
			t.Fatalf("%d %s", n, list)
		}
	}
}

// listDirNotADirectory lists files.
func listDirNotADirectory(t *testing.T, s *toolSession) {
	s.fail(t, "list_dir", map[string]any{"path": "hello.txt"}, "NOT_A_DIRECTORY")
	s.fail(t, "list_dir", map[string]any{"path": "inlink.txt"}, "NOT_A_DIRECTORY")
}

func TestToolsListFiles(t *testing.T) {
	t.Parallel()
	all := []string{"bin.dat", "bom_crlf.txt", "dir/a.go", "dir/sub/b.go", "dir/sub/deep/c.go", "hello.txt", "inlink.txt",
		"late_bad.txt", "latin1.txt", "lines.txt", "long.txt", "src/main.go", "utf8long.txt", "wide/w1.txt", "wide/w2.txt", "wide/w3.txt"}
	runToolCases(t, sharedFixture(t), []toolCase{
		{"default: every visible file", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "list_files", nil)
			wantFields(t, sc, map[string]any{"path": ".", "truncated": false, "warnings": []any{}})
			files := objects(t, sc["files"])
			if got := field(files, "path"); !slices.Equal(got, all) {
				t.Fatalf("files %v\nwant  %v", got, all)
			}
			for _, f := range files {
				wantRFC3339Z(t, f["modified"])
				want := "file"
				if f["path"] == "inlink.txt" {
					want = "symlink"
				}
				if f["type"] != want {
					t.Errorf("%v: type %v", f["path"], f["type"])
				}
				if f["path"] == "hello.txt" && num(t, f["size_bytes"]) != 18 {
					t.Errorf("hello.txt size %v", f["size_bytes"])
				}
			}
		}},
		{"patterns", func(t *testing.T, s *toolSession) {
			list := func(args map[string]any) []string {
				return field(objects(t, s.ok(t, "list_files", args)["files"]), "path")
			}
			goFiles := []string{"dir/a.go", "dir/sub/b.go", "dir/sub/deep/c.go", "src/main.go"}
			for _, p := range []string{"*.go", "**/*.go"} {
				if got := list(map[string]any{"patterns": []any{p}}); !slices.Equal(got, goFiles) {
					t.Errorf("%s: %v", p, got)
				}
			}
			if got := list(map[string]any{"patterns": []any{"sub/*.go"}}); !slices.Equal(got, []string{"dir/sub/b.go"}) {
				t.Errorf("sub/*.go: %v", got)
			}
			if got := list(map[string]any{"patterns": []any{"src/*.go", "w?.txt"}}); !slices.Equal(got,
				[]string{"src/main.go", "wide/w1.txt", "wide/w2.txt", "wide/w3.txt"}) {
				t.Errorf("two patterns: %v", got)
			}
			if got := list(map[string]any{"glob": "*.dat"}); !slices.Equal(got, []string{"bin.dat"}) {
				t.Errorf("glob: %v", got)
			}
			// patterns win over glob, even when they spell the default.
			if got := list(map[string]any{"patterns": []any{"**/*"}, "glob": "*.dat"}); !slices.Equal(got, all) {
				t.Errorf("explicit **/* and glob: %v", got)
			}
			if got := list(map[string]any{"patterns": []any{"a.go"}, "glob": "*.dat"}); !slices.Equal(got, []string{"dir/a.go"}) {
				t.Errorf("patterns and glob: %v", got)
			}
			if got := list(map[string]any{"path": "dir", "patterns": []any{"*.go"}}); !slices.Equal(got, goFiles[:3]) {
				t.Errorf("under dir: %v", got)
			}
		}},
		{"exclude", func(t *testing.T, s *toolSession) {
			list := func(args map[string]any) []string {
				return field(objects(t, s.ok(t, "list_files", args)["files"]), "path")
			}
			if got := list(map[string]any{"patterns": []any{"*.go"}, "exclude_patterns": []any{"deep"}}); !slices.Equal(got,
				[]string{"dir/a.go", "dir/sub/b.go", "src/main.go"}) {
				t.Errorf("excluding a directory: %v", got)
			}
			if got := list(map[string]any{"path": "dir", "exclude_patterns": []any{"*.go"}}); len(got) != 0 {
				t.Errorf("excluding every file: %v", got)
			}
			if got := list(map[string]any{"exclude_patterns": []any{"*.txt", "*.dat", "*.go"}}); len(got) != 0 {
				t.Errorf("excluding everything: %v", got)
			}
		}},
		{".gitignore, hidden and default exclusions", func(t *testing.T, s *toolSession) {
			list := func(args map[string]any) []string {
				return field(objects(t, s.ok(t, "list_files", args)["files"]), "path")
			}
			ign := list(map[string]any{"include_ignored": true})
			for _, p := range []string{"ignored.log", "gen/out.txt", "node_modules/pkg/index.js"} {
				if !slices.Contains(ign, p) {
					t.Errorf("include_ignored lacks %s: %v", p, ign)
				}
			}
			if slices.ContainsFunc(ign, func(p string) bool { return strings.HasPrefix(p, ".") }) {
				t.Errorf("include_ignored shows hidden files: %v", ign)
			}
			hid := list(map[string]any{"include_hidden": true})
			if !slices.Contains(hid, ".hidden/h.txt") || !slices.Contains(hid, ".gitignore") {
				t.Errorf("include_hidden: %v", hid)
			}
			if slices.ContainsFunc(hid, func(p string) bool {
				return strings.HasPrefix(p, ".git/") || p == "ignored.log" || strings.HasPrefix(p, "gen/")
			}) {
				t.Errorf("include_hidden shows ignored files: %v", hid)
			}
			both := list(map[string]any{"include_hidden": true, "include_ignored": true})
			if !slices.ContainsFunc(both, func(p string) bool { return strings.HasPrefix(p, ".git/") }) {
				t.Errorf("both opt-ins do not show .git: %v", both)
			}
		}},
		{"max_results", limitCase("list_files", "max_results", "files", "path", all, "result limit reached")},
		{"sort by modified", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "list_files", map[string]any{"sort": "modified"})
			var prev time.Time
			for _, f := range objects(t, sc["files"]) {
				m, _ := time.Parse(time.RFC3339Nano, f["modified"].(string))
				if m.Before(prev) {
					t.Fatalf("not oldest first at %v", f["path"])
				}
				prev = m
			}
		}},
		{"errors", func(t *testing.T, s *toolSession) {
			s.fail(t, "list_files", map[string]any{"path": "hello.txt"}, "NOT_A_DIRECTORY")
			s.fail(t, "list_files", map[string]any{"path": "missing"}, "NOT_FOUND")
			s.fail(t, "list_files", map[string]any{"path": "escape"}, "SYMLINK_ESCAPE")
			s.fail(t, "list_files", map[string]any{"path": "/"}, "ABSOLUTE_PATH_DENIED")
			s.fail(t, "list_files", map[string]any{"path": "dir/../.."}, "PATH_OUTSIDE_WORKSPACE")
			s.fail(t, "list_files", map[string]any{"patterns": []any{"[a-"}}, "INVALID_ARGUMENT")
		}},
	})
}

func TestToolsSearchText(t *testing.T) {
	t.Parallel()
	runToolCases(t, sharedFixture(t), []toolCase{
		{"literal, case-insensitive by default", searchLiteral},
		{"regex", searchRegex},
		{"invalid regex", searchInvalidRegex},
		{"context lines", searchContext},
		{"max_results and total_matches", searchLimit},
		{"preview cut", searchPreview},
		{"globs", searchGlobs},
		{"filters, binary and invalid UTF-8 files, escaping symlinks", searchFilters},
		{"path errors", pathErrors("search_text", map[string]any{"query": "x"}, map[string]string{"missing": "NOT_FOUND",
			"/etc": "ABSOLUTE_PATH_DENIED", "../": "PATH_OUTSIDE_WORKSPACE", "a\x00b": "INVALID_ARGUMENT"})},
	})
}

// pathErrors is a case that calls tool with args and each path, which
// must fail with its code.
func pathErrors(tool string, args map[string]any, codes map[string]string) func(t *testing.T, s *toolSession) {
	return func(t *testing.T, s *toolSession) {
		for path, code := range codes {
			a := maps.Clone(args)
			if a == nil {
				a = map[string]any{}
			}
			a["path"] = path
			s.fail(t, tool, a, code)
		}
	}
}

// hit is one search_text match.
type hit struct {
	path         string
	line, column int
	preview      string
}

// hitPaths are the paths of a search_text result's matches.
func hitPaths(t *testing.T, sc map[string]any) []string {
	var out []string
	for _, h := range hits(t, sc) {
		out = append(out, h.path)
	}
	return out
}

// hits are a search_text result's matches.
func hits(t *testing.T, sc map[string]any) []hit {
	var out []hit
	for _, m := range objects(t, sc["matches"]) {
		out = append(out, hit{m["path"].(string), num(t, m["line"]), num(t, m["column"]), m["preview"].(string)})
	}
	return out
}

// searchLiteral checks literal search, case-insensitive unless asked.
func searchLiteral(t *testing.T, s *toolSession) {
	sc := s.ok(t, "search_text", map[string]any{"query": "hello", "path": "src"})
	wantFields(t, sc, map[string]any{"query": "hello", "total_matches": 4, "truncated": false, "warnings": []any{}})
	want := []hit{
		{"src/main.go", 3, 4, "// Hello World"},
		{"src/main.go", 5, 11, "\tprintln(\"hello again\")"},
		{"src/main.go", 6, 8, "\tx := \"HELLO\""},
		{"src/main.go", 7, 14, "\t_ = x // é hello"}, // column: 1-based byte offset
	}
	if got := hits(t, sc); !reflect.DeepEqual(got, want) {
		t.Fatalf("matches %+v\nwant    %+v", got, want)
	}
	for _, m := range objects(t, sc["matches"]) {
		if len(m["before"].([]any)) != 0 || len(m["after"].([]any)) != 0 {
			t.Fatalf("context without context_lines: %v", m)
		}
	}
	sc = s.ok(t, "search_text", map[string]any{"query": "hello", "path": "src", "case_sensitive": true})
	if got := hits(t, sc); len(got) != 2 || got[0].line != 5 || got[1].line != 7 {
		t.Fatalf("case-sensitive: %+v", got)
	}
	// Regex metacharacters are literal.
	sc = s.ok(t, "search_text", map[string]any{"query": `("hello`, "path": "src/main.go"})
	if got := hits(t, sc); len(got) != 1 || got[0].line != 5 || got[0].column != 9 {
		t.Fatalf("literal metacharacters: %+v", got)
	}
}

// searchRegex checks regular expressions.
func searchRegex(t *testing.T, s *toolSession) {
	sc := s.ok(t, "search_text", map[string]any{"query": `H[A-Z]+O\b`, "regex": true, "case_sensitive": true, "path": "src"})
	if got := hits(t, sc); len(got) != 1 || got[0] != (hit{"src/main.go", 6, 8, "\tx := \"HELLO\""}) {
		t.Fatalf("regex: %+v", got)
	}
	sc = s.ok(t, "search_text", map[string]any{"query": `^func \w+\(`, "regex": true, "path": "src"})
	if got := hits(t, sc); len(got) != 1 || got[0].line != 4 || got[0].column != 1 {
		t.Fatalf("anchored regex: %+v", got)
	}
	sc = s.ok(t, "search_text", map[string]any{"query": `h.llo`, "regex": true, "path": "src"})
	wantFields(t, sc, map[string]any{"total_matches": 4})
}

// searchInvalidRegex checks INVALID_ARGUMENT for a bad expression.
func searchInvalidRegex(t *testing.T, s *toolSession) {
	s.fail(t, "search_text", map[string]any{"query": "(unclosed", "regex": true}, "INVALID_ARGUMENT")
	s.fail(t, "search_text", map[string]any{"query": "a**", "regex": true}, "INVALID_ARGUMENT")
	// The same text is a fine literal.
	s.ok(t, "search_text", map[string]any{"query": "(unclosed"})
}

// searchContext checks context_lines.
func searchContext(t *testing.T, s *toolSession) {
	sc := s.ok(t, "search_text", map[string]any{"query": "func main", "path": "src", "context_lines": 2})
	ms := objects(t, sc["matches"])
	if len(ms) != 1 {
		t.Fatalf("matches %v", ms)
	}
	if b := strs(t, ms[0]["before"]); !slices.Equal(b, []string{"", "// Hello World"}) {
		t.Fatalf("before %q", b)
	}
	if a := strs(t, ms[0]["after"]); !slices.Equal(a, []string{"\tprintln(\"hello again\")", "\tx := \"HELLO\""}) {
		t.Fatalf("after %q", a)
	}
	// At the file's edges the context is shorter.
	sc = s.ok(t, "search_text", map[string]any{"query": "package main", "path": "src", "context_lines": 5})
	if m := objects(t, sc["matches"])[0]; len(m["before"].([]any)) != 0 || len(m["after"].([]any)) != 5 {
		t.Fatalf("edge context %v", m)
	}
	// CRLF: the "\r" is not part of the preview or the context.
	sc = s.ok(t, "search_text", map[string]any{"query": "beta", "path": "bom_crlf.txt", "context_lines": 1})
	m := objects(t, sc["matches"])[0]
	if m["preview"] != "beta" || !slices.Equal(strs(t, m["before"]), []string{"\ufeffalpha"}) {
		t.Fatalf("CRLF match %v", m)
	}
}

// searchLimit checks max_results and total_matches.
func searchLimit(t *testing.T, s *toolSession) {
	sc := s.ok(t, "search_text", map[string]any{"query": "hello", "path": "src", "max_results": 1})
	wantFields(t, sc, map[string]any{"total_matches": 4, "truncated": true})
	if got := hits(t, sc); len(got) != 1 || got[0].line != 3 {
		t.Fatalf("first match %+v", got)
	}
	wantWarning(t, sc, "result limit reached")
	sc = s.ok(t, "search_text", map[string]any{"query": "line 1", "path": "lines.txt", "max_results": 5})
	wantFields(t, sc, map[string]any{"total_matches": 1111, "truncated": true}) // line 1, 10-19, 100-199, 1000-1999
	// Across files: the first matches in path order.
	sc = s.ok(t, "search_text", map[string]any{"query": "package", "max_results": 2})
	wantFields(t, sc, map[string]any{"total_matches": 4, "truncated": true})
	if got := hits(t, sc); len(got) != 2 || got[0].path != "dir/a.go" || got[1].path != "dir/sub/b.go" {
		t.Fatalf("first two files %+v", got)
	}
}

// searchPreview checks the preview cut.
func searchPreview(t *testing.T, s *toolSession) {
	sc := s.ok(t, "search_text", map[string]any{"query": "xxx", "path": "long.txt", "max_preview_bytes": 80})
	p := objects(t, sc["matches"])[0]["preview"].(string)
	if len(p) > 80 || !strings.HasPrefix(p, "xxx") || !strings.Contains(p, "truncated") {
		t.Fatalf("preview %q", p)
	}
	sc = s.ok(t, "search_text", map[string]any{"query": "é", "path": "utf8long.txt", "max_preview_bytes": 81})
	if p := objects(t, sc["matches"])[0]["preview"].(string); len(p) > 81 || !utf8.ValidString(p) {
		t.Fatalf("preview %q", p)
	}
}

// searchGlobs checks include and exclude globs.
func searchGlobs(t *testing.T, s *toolSession) {
	sc := s.ok(t, "search_text", map[string]any{"query": "package", "include_globs": []any{"*.go"}, "exclude_globs": []any{"deep"}})
	paths := hitPaths(t, sc)
	if !slices.Equal(paths, []string{"dir/a.go", "dir/sub/b.go", "src/main.go"}) {
		t.Fatalf("paths %v", paths)
	}
	sc = s.ok(t, "search_text", map[string]any{"query": "package", "glob": "b.go"})
	if got := hits(t, sc); len(got) != 1 || got[0].path != "dir/sub/b.go" {
		t.Fatalf("glob: %+v", got)
	}
}

// searchFilters checks what a search never reads.
func searchFilters(t *testing.T, s *toolSession) {
	sc := s.ok(t, "search_text", map[string]any{"query": "needle"})
	if got := hits(t, sc); len(got) != 1 || got[0].path != "dir/a.go" {
		t.Fatalf("needle found in %+v", got)
	}
	wantFields(t, sc, map[string]any{"total_matches": 1})
	b, _ := json.Marshal(sc)
	if strings.Contains(string(b), "TOPSECRET") || strings.Contains(string(b), "outside") {
		t.Fatalf("content behind an escaping symlink appeared: %s", b)
	}
	sc = s.ok(t, "search_text", map[string]any{"query": "TOPSECRET", "regex": true})
	wantFields(t, sc, map[string]any{"total_matches": 0, "matches": []any{}, "truncated": false})
	for _, p := range []string{"escape", "escape_file", "escape/secret.txt"} {
		sc := s.call(t, "search_text", map[string]any{"query": "TOPSECRET", "path": p})
		wantToolError(t, sc, "SYMLINK_ESCAPE")
		if b, _ := json.Marshal(sc["error"]); strings.Contains(string(b), "needle-outside") {
			t.Fatalf("outside content leaked: %s", b)
		}
	}
	// A symlink to a file inside is searched under its own name.
	sc = s.ok(t, "search_text", map[string]any{"query": "line2"})
	paths := hitPaths(t, sc)
	if !slices.Equal(paths, []string{"hello.txt", "inlink.txt"}) {
		t.Fatalf("line2 in %v", paths)
	}
}

// freshDir is a setup that gives each transport its own empty workspace
// with files.
func freshDir(files map[string]string) func(t *testing.T) string {
	return func(t *testing.T) string {
		dir := t.TempDir()
		wstest.Write(t, dir, files)
		return dir
	}
}

func envelope(body string) string { return "*** Begin Patch\n" + body + "*** End Patch\n" }

func TestToolsApplyPatch(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) string {
		dir := freshDir(map[string]string{
			"u.txt":       "one\ntwo\nthree\n",
			"d.txt":       "bye\n",
			"m.txt":       "move me\nkeep\n",
			"crlf.txt":    "\ufeffa\r\nb\r\n",
			"amb.txt":     "x\ny\nx\ny\n",
			"aon.txt":     "stable\n",
			"ws.txt":      "foo   \nbar\n",
			"dry.txt":     "dry\n",
			"sub/old.txt": "old\n",
		})(t)
		outside := t.TempDir()
		symlink(t, outside, filepath.Join(dir, "escape"))
		symlink(t, "u.txt", filepath.Join(dir, "link.txt"))
		return dir
	}
	runToolCases(t, setup, []toolCase{
		{"add", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "apply_patch", map[string]any{"patch": envelope("*** Add File: new/dir/a.txt\n+hello\n+world\n")})
			wantFields(t, sc, map[string]any{"dry_run": false, "clean": true, "summary": "A new/dir/a.txt",
				"affected_files": []any{map[string]any{"path": "new/dir/a.txt", "operation": "add"}}, "warnings": []any{}})
			if got := readWS(t, s, "new/dir/a.txt"); got != "hello\nworld\n" {
				t.Fatalf("added %q", got)
			}
		}},
		{"update", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "apply_patch", map[string]any{"patch": envelope("*** Update File: u.txt\n@@\n one\n-two\n+TWO\n three\n")})
			wantFields(t, sc, map[string]any{"clean": true, "summary": "M u.txt",
				"affected_files": []any{map[string]any{"path": "u.txt", "operation": "update"}}})
			if got := readWS(t, s, "u.txt"); got != "one\nTWO\nthree\n" {
				t.Fatalf("updated %q", got)
			}
			// BOM and CRLF survive.
			s.ok(t, "apply_patch", map[string]any{"patch": envelope("*** Update File: crlf.txt\n-b\n+B\n")})
			if got := readWS(t, s, "crlf.txt"); got != "\ufeffa\r\nB\r\n" {
				t.Fatalf("crlf.txt %q", got)
			}
			// A relaxed match succeeds, not clean, with a warning.
			sc = s.ok(t, "apply_patch", map[string]any{"patch": envelope("*** Update File: ws.txt\n-foo\n+FOO\n")})
			wantFields(t, sc, map[string]any{"clean": false})
			wantWarning(t, sc, "trailing whitespace")
			if got := readWS(t, s, "ws.txt"); got != "FOO\nbar\n" {
				t.Fatalf("ws.txt %q", got)
			}
		}},
		{"delete", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "apply_patch", map[string]any{"patch": envelope("*** Delete File: d.txt\n")})
			wantFields(t, sc, map[string]any{"summary": "D d.txt",
				"affected_files": []any{map[string]any{"path": "d.txt", "operation": "delete"}}})
			if existsWS(s, "d.txt") {
				t.Fatal("d.txt still exists")
			}
		}},
		{"move", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "apply_patch", map[string]any{"patch": envelope("*** Update File: m.txt\n*** Move to: moved/m2.txt\n-move me\n+moved\n keep\n")})
			wantFields(t, sc, map[string]any{"summary": "R m.txt -> moved/m2.txt",
				"affected_files": []any{map[string]any{"path": "moved/m2.txt", "old_path": "m.txt", "operation": "move"}}})
			if existsWS(s, "m.txt") {
				t.Fatal("m.txt still exists")
			}
			if got := readWS(t, s, "moved/m2.txt"); got != "moved\nkeep\n" {
				t.Fatalf("moved %q", got)
			}
		}},
		{"several operations", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "apply_patch", map[string]any{"patch": envelope(
				"*** Add File: multi/a.txt\n+a\n*** Update File: sub/old.txt\n-old\n+new\n")})
			wantFields(t, sc, map[string]any{"summary": "A multi/a.txt\nM sub/old.txt"})
			if readWS(t, s, "multi/a.txt") != "a\n" || readWS(t, s, "sub/old.txt") != "new\n" {
				t.Fatal("not applied")
			}
		}},
		{"dry run creates nothing", func(t *testing.T, s *toolSession) {
			sc := s.ok(t, "apply_patch", map[string]any{"dry_run": true, "patch": envelope(
				"*** Add File: drynew/deep/x.txt\n+x\n*** Update File: dry.txt\n-dry\n+wet\n*** Delete File: aon.txt\n")})
			wantFields(t, sc, map[string]any{"dry_run": true, "clean": true, "summary": "A drynew/deep/x.txt\nM dry.txt\nD aon.txt"})
			if existsWS(s, "drynew") {
				t.Fatal("dry run created a directory")
			}
			if readWS(t, s, "dry.txt") != "dry\n" || !existsWS(s, "aon.txt") {
				t.Fatal("dry run changed files")
			}
			// Validation is identical: a failing dry run fails the same way.
			s.fail(t, "apply_patch", map[string]any{"dry_run": true, "patch": envelope("*** Update File: dry.txt\n-nope\n+x\n")}, "PATCH_FAILED")
		}},
		{"ambiguous context", func(t *testing.T, s *toolSession) {
			e := s.fail(t, "apply_patch", map[string]any{"patch": envelope("*** Update File: amb.txt\n x\n-y\n+Y\n")}, "PATCH_FAILED")
			if !strings.Contains(e["message"].(string), "matched 2 locations") {
				t.Fatalf("message %q", e["message"])
			}
			if m := e["details"].(map[string]any)["matches"]; m != 2.0 {
				t.Fatalf("details.matches = %v", m)
			}
			if got := readWS(t, s, "amb.txt"); got != "x\ny\nx\ny\n" {
				t.Fatalf("amb.txt changed: %q", got)
			}
		}},
		{"all or nothing", func(t *testing.T, s *toolSession) {
			before := readWS(t, s, "aon.txt")
			for _, bad := range []struct{ patch, code string }{
				{"*** Add File: aon/new.txt\n+n\n*** Update File: aon.txt\n-stable\n+changed\n*** Update File: aon.txt\n-missing context\n+x\n", "PATCH_FAILED"},
				{"*** Update File: aon.txt\n-stable\n+changed\n*** Delete File: nothing-here.txt\n", "NOT_FOUND"},
				{"*** Add File: aon/new.txt\n+n\n*** Add File: aon.txt\n+exists\n", "PATCH_FAILED"},
				{"*** Update File: aon.txt\n-stable\n+changed\n*** Add File: /abs.txt\n+x\n", "ABSOLUTE_PATH_DENIED"},
				{"*** Update File: aon.txt\n-stable\n+changed\n*** Add File: ../up.txt\n+x\n", "PATH_OUTSIDE_WORKSPACE"},
				{"*** Update File: aon.txt\n-stable\n+changed\n*** Add File: escape/x.txt\n+x\n", "PATH_OUTSIDE_WORKSPACE"},
				{"*** Update File: aon.txt\n-stable\n+changed\n*** Update File: link.txt\n-one\n+1\n", "SYMLINK_ESCAPE"},
			} {
				s.fail(t, "apply_patch", map[string]any{"patch": envelope(bad.patch)}, bad.code)
				if existsWS(s, "aon") || existsWS(s, "abs.txt") || readWS(t, s, "aon.txt") != before {
					t.Fatalf("a failing patch changed the workspace:\n%s", bad.patch)
				}
			}
		}},
		{"grammar and rule violations", func(t *testing.T, s *toolSession) {
			for _, p := range []string{
				"*** Add File: x.txt\n+x\n",              // no envelope
				envelope(""),                             // no operations
				envelope("*** Update File: u.txt\n"),     // empty update
				envelope("*** Frobnicate File: u.txt\n"), // unknown line
				envelope("*** Add File: u.txt\n+exists\n"),
				envelope("*** Update File: sub\n-x\n+y\n"),                   // a directory
				envelope("*** Update File: dry.txt\n*** Move to: aon.txt\n"), // onto an existing file
				envelope("*** Add File: dry.txt/x\n+x\n"),                    // parent is a file
			} {
				s.fail(t, "apply_patch", map[string]any{"patch": p}, "PATCH_FAILED")
			}
			// Never through a symlink, even one pointing inside.
			s.fail(t, "apply_patch", map[string]any{"patch": envelope("*** Delete File: link.txt\n")}, "SYMLINK_ESCAPE")
			s.fail(t, "apply_patch", map[string]any{"patch": envelope("*** Update File: dry.txt\n*** Move to: link.txt\n")}, "SYMLINK_ESCAPE")
			if !existsWS(s, "link.txt") || readWS(t, s, "dry.txt") != "dry\n" {
				t.Fatal("a refused patch changed the workspace")
			}
			s.fail(t, "apply_patch", map[string]any{"patch": envelope("*** Update File: missing.txt\n-a\n+b\n")}, "NOT_FOUND")
			s.fail(t, "apply_patch", map[string]any{"patch": envelope("*** Add File: nul\x00.txt\n+x\n")}, "INVALID_ARGUMENT")
		}},
	})
}

func TestToolsGit(t *testing.T) {
	t.Parallel()
	t.Run("in a repository", func(t *testing.T) {
		t.Parallel()
		setup := func(t *testing.T) string {
			dir := t.TempDir()
			wstest.Write(t, dir, map[string]string{"tracked.txt": "a\nb\nc\n", "other.txt": "o\n"})
			testkit.Git(t, dir, "init", "-q")
			testkit.Git(t, dir, "add", ".")
			testkit.Git(t, dir, "commit", "-q", "-m", "init")
			return dir
		}
		runToolCases(t, setup, []toolCase{
			{"clean", func(t *testing.T, s *toolSession) {
				sc := s.ok(t, "git_status", nil)
				wantFields(t, sc, map[string]any{"is_repo": true, "clean": true, "entries": []any{}, "truncated": false,
					"branch": "main", "upstream": "", "ahead": 0, "behind": 0})
				if h, _ := sc["head"].(string); len(h) != 40 {
					t.Fatalf("head %q", h)
				}
				sc = s.ok(t, "git_diff", nil)
				wantFields(t, sc, map[string]any{"diff": "", "files": []any{}, "truncated": false})
			}},
			{"after apply_patch", func(t *testing.T, s *toolSession) {
				s.ok(t, "apply_patch", map[string]any{"patch": envelope(
					"*** Update File: tracked.txt\n a\n-b\n+B\n c\n*** Add File: fresh.txt\n+new\n")})
				sc := s.ok(t, "git_status", nil)
				wantFields(t, sc, map[string]any{"is_repo": true, "clean": false, "truncated": false})
				// The profile fixes no order (git lists tracked changes first).
				ents := objects(t, sc["entries"])
				slices.SortFunc(ents, func(a, b map[string]any) int { return strings.Compare(a["path"].(string), b["path"].(string)) })
				if want := []map[string]any{
					{"path": "fresh.txt", "index_status": "?", "worktree_status": "?"},
					{"path": "tracked.txt", "index_status": " ", "worktree_status": "M"},
				}; !reflect.DeepEqual(ents, want) {
					t.Fatalf("entries %v\nwant    %v", ents, want)
				}
				sc = s.ok(t, "git_status", map[string]any{"include_untracked": false})
				wantFields(t, sc, map[string]any{"entries": []any{
					map[string]any{"path": "tracked.txt", "index_status": " ", "worktree_status": "M"}}})
				sc = s.ok(t, "git_status", map[string]any{"max_entries": 1})
				wantFields(t, sc, map[string]any{"truncated": true})

				sc = s.ok(t, "git_diff", nil)
				diff := sc["diff"].(string)
				for _, want := range []string{"--- a/tracked.txt", "+++ b/tracked.txt", "\n a\n-b\n+B\n c\n"} {
					if !strings.Contains(diff, want) {
						t.Fatalf("diff lacks %q:\n%s", want, diff)
					}
				}
				if strings.Contains(diff, "fresh.txt") {
					t.Fatalf("untracked file in the diff:\n%s", diff)
				}
				wantFields(t, sc, map[string]any{"truncated": false, "truncated_by": nil,
					"files": []any{map[string]any{"path": "tracked.txt", "status": "modified", "binary": false}}})
				if num(t, sc["output_bytes"]) != len(diff) || num(t, sc["output_lines"]) != strings.Count(diff, "\n") {
					t.Fatalf("output_bytes %v, output_lines %v for %d bytes", sc["output_bytes"], sc["output_lines"], len(diff))
				}
				// Filters: path and paths; a path that does not exist is fine.
				sc = s.ok(t, "git_diff", map[string]any{"path": "tracked.txt"})
				if !strings.Contains(sc["diff"].(string), "+B") {
					t.Fatalf("path filter lost the change: %v", sc["diff"])
				}
				sc = s.ok(t, "git_diff", map[string]any{"paths": []any{"other.txt", "not/yet.txt"}})
				wantFields(t, sc, map[string]any{"diff": "", "files": []any{}})
				sc = s.ok(t, "git_diff", map[string]any{"context_lines": 0})
				if d := sc["diff"].(string); strings.Contains(d, "\n a\n") || !strings.Contains(d, "@@ -2 +2 @@") {
					t.Fatalf("context_lines 0 kept context:\n%s", sc["diff"])
				}
				sc = s.ok(t, "git_diff", map[string]any{"staged": true, "unstaged": false})
				wantFields(t, sc, map[string]any{"diff": ""})
				sc = s.ok(t, "git_diff", map[string]any{"max_bytes": 20})
				wantFields(t, sc, map[string]any{"truncated": true, "truncated_by": "bytes"})
				wantWarning(t, sc, "diff truncated")
				if len(sc["diff"].(string)) > 20 || len(objects(t, sc["files"])) != 1 {
					t.Fatalf("truncated diff %q, files %v", sc["diff"], sc["files"])
				}
			}},
			{"staged", func(t *testing.T, s *toolSession) {
				testkit.Git(t, s.dir, "add", "tracked.txt")
				sc := s.ok(t, "git_status", map[string]any{"path": "tracked.txt"})
				wantFields(t, sc, map[string]any{"entries": []any{
					map[string]any{"path": "tracked.txt", "index_status": "M", "worktree_status": " "}}})
				sc = s.ok(t, "git_diff", map[string]any{"staged": true, "unstaged": false})
				if !strings.Contains(sc["diff"].(string), "+B") {
					t.Fatalf("staged diff %q", sc["diff"])
				}
				wantFields(t, s.ok(t, "git_diff", nil), map[string]any{"diff": ""})
			}},
			{"path errors", func(t *testing.T, s *toolSession) {
				s.fail(t, "git_diff", map[string]any{"path": "/etc/passwd"}, "ABSOLUTE_PATH_DENIED")
				s.fail(t, "git_diff", map[string]any{"paths": []any{"../x"}}, "PATH_OUTSIDE_WORKSPACE")
				s.fail(t, "git_status", map[string]any{"path": "missing"}, "NOT_FOUND")
				s.fail(t, "git_status", map[string]any{"path": "/"}, "ABSOLUTE_PATH_DENIED")
			}},
		})
	})
	t.Run("outside a repository", func(t *testing.T) {
		t.Parallel()
		runToolCases(t, freshDir(map[string]string{"f.txt": "old\nsame\n"}), []toolCase{
			{"git_status", func(t *testing.T, s *toolSession) {
				// TestMain sets GIT_CEILING_DIRECTORIES: git does not look
				// above the temporary directory for a repository.
				sc := s.ok(t, "git_status", nil)
				wantFields(t, sc, map[string]any{"is_repo": false, "clean": true, "entries": []any{}, "truncated": false})
			}},
			{"git_diff falls back", func(t *testing.T, s *toolSession) {
				s.ok(t, "apply_patch", map[string]any{"patch": envelope(
					"*** Update File: f.txt\n-old\n+new\n same\n*** Add File: g.txt\n+g\n")})
				sc := s.ok(t, "git_diff", nil)
				wantWarning(t, sc, "non-git diff fallback")
				diff := sc["diff"].(string)
				for _, want := range []string{"f.txt", "-old\n", "+new\n", "g.txt", "+g\n"} {
					if !strings.Contains(diff, want) {
						t.Fatalf("fallback diff lacks %q:\n%s", want, diff)
					}
				}
				wantFields(t, sc, map[string]any{"files": []any{
					map[string]any{"path": "f.txt", "status": "modified", "binary": false},
					map[string]any{"path": "g.txt", "status": "added", "binary": false},
				}})
				sc = s.ok(t, "git_diff", map[string]any{"path": "g.txt"})
				if d := sc["diff"].(string); strings.Contains(d, "f.txt") || !strings.Contains(d, "+g") {
					t.Fatalf("filtered fallback diff:\n%s", d)
				}
				wantWarning(t, sc, "non-git diff fallback")
			}},
		})
	})
}
