package modelsim

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseScript(t *testing.T) {
	got := parseScript("Prose first.\n  @sim write a/b.txt \"x\\ny \\\"q\\\"\"\n@sim shell \"go test ./...\"\nmore prose @sim text \"no\"\n@sim error 503\n@sim hang\n@sim wait go\n@sim text \"bye\"")
	want := []step{
		{op: "write", args: []string{"a/b.txt", "x\ny \"q\""}},
		{op: "shell", args: []string{"go test ./..."}},
		{op: "error", args: []string{"503"}, status: 503},
		{op: "hang", args: []string{}},
		{op: "text", args: []string{"bye"}, waitFor: "go"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseScript:\n got %#v\nwant %#v", got, want)
	}
}

// A malformed line becomes a text step naming the problem, so the test
// that wrote it reads why in the CLI's answer.
func TestParseScriptErrors(t *testing.T) {
	for line, why := range map[string]string{
		`@sim write only-path`:     "write takes 2 argument(s), got 1",
		`@sim text "unfinished`:    "unterminated",
		`@sim error 200`:           "HTTP status 400-599",
		`@sim dance "now"`:         `unknown operation "dance"`,
		`@sim shell "a" "b"`:       "shell takes 1 argument(s), got 2",
		`@sim error not-a-code`:    "HTTP status",
		"@sim write p \"c\" \"d\"": "got 3",
	} {
		st := parseScript(line)
		if len(st) != 1 || st[0].op != "text" || !strings.Contains(st[0].args[0], why) {
			t.Errorf("parseScript(%q) = %#v, want a text step saying %q", line, st, why)
		}
	}
}

// Each CLI's tools, as their schemas declare them, get the argument names
// and shapes they want.
func TestToolCalls(t *testing.T) {
	str := map[string]any{"type": "string"}
	schema := func(required []any, props map[string]any) map[string]any {
		return map[string]any{"type": "object", "required": required, "properties": props}
	}
	for _, c := range []struct {
		tool  toolDef
		write bool
		want  map[string]any
	}{
		{toolDef{name: "Write", schema: schema([]any{"file_path", "content"}, map[string]any{"file_path": str, "content": str})}, true,
			map[string]any{"file_path": "/r/f.txt", "content": "c\n"}},
		{toolDef{name: "write", schema: schema([]any{"filePath", "content"}, map[string]any{"filePath": str, "content": str})}, true,
			map[string]any{"filePath": "/r/f.txt", "content": "c\n"}},
		{toolDef{name: "apply_patch", schema: schema([]any{"input"}, map[string]any{"input": str})}, true,
			map[string]any{"input": "*** Begin Patch\n*** Add File: /r/f.txt\n+c\n*** End Patch\n"}},
		{toolDef{name: "shell", schema: schema([]any{"command"}, map[string]any{"command": map[string]any{"type": "array"}, "workdir": str})}, false,
			map[string]any{"command": []string{"bash", "-lc", "make"}}},
		{toolDef{name: "exec_command", schema: schema([]any{"cmd"}, map[string]any{"cmd": str})}, false,
			map[string]any{"cmd": "make"}},
		{toolDef{name: "run_shell_command", schema: schema([]any{"command", "is_background"}, map[string]any{"command": str, "is_background": map[string]any{"type": "BOOLEAN"}})}, false,
			map[string]any{"command": "make", "is_background": false}},
		{toolDef{name: "bash", schema: schema([]any{"command", "description"}, map[string]any{"command": str, "description": str})}, false,
			map[string]any{"command": "make", "description": "Simulated description"}},
	} {
		var call *toolCall
		var err error
		if c.write {
			call, err = writeCall([]toolDef{{name: "Read"}, c.tool}, "/r/f.txt", "c\n")
		} else {
			call, err = shellCall([]toolDef{{name: "Read"}, c.tool}, "make")
		}
		if err != nil || call.name != c.tool.name || !reflect.DeepEqual(call.args, c.want) {
			t.Errorf("%s: %+v, %v; want args %v", c.tool.name, call, err, c.want)
		}
	}
	if _, err := writeCall([]toolDef{{name: "Read"}}, "f", "c"); err == nil || !strings.Contains(err.Error(), "no file-write tool offered") {
		t.Errorf("without a write tool: %v", err)
	}
}
