package modelsim

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The CLIs' own tools, by name, in the order the simulator prefers them.
var (
	writeTools = []string{"Write", "write_file", "write", "apply_patch"}
	shellTools = []string{"Bash", "run_shell_command", "bash", "shell", "shell_command", "exec_command"}
)

func findTool(tools []toolDef, names []string) (toolDef, bool) {
	for _, n := range names {
		for _, t := range tools {
			if t.name == n {
				return t, true
			}
		}
	}
	return toolDef{}, false
}

func toolNames(tools []toolDef) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.name)
	}
	return out
}

// writeCall is a call of the CLI's file-write tool that creates path with
// content, with the argument names its schema declares.
func writeCall(tools []toolDef, path, content string) (*toolCall, error) {
	t, ok := findTool(tools, writeTools)
	if !ok {
		return nil, fmt.Errorf("modelsim: no file-write tool offered (want one of %v, got %v)", writeTools, toolNames(tools))
	}
	if t.name == "apply_patch" {
		patch := "*** Begin Patch\n*** Add File: " + path + "\n"
		for _, l := range strings.SplitAfter(content, "\n") {
			if l != "" {
				patch += "+" + strings.TrimSuffix(l, "\n") + "\n"
			}
		}
		patch += "*** End Patch\n"
		if t.custom {
			return &toolCall{name: t.name, custom: true, input: patch}, nil
		}
		return fill(t, map[string]any{firstProp(t, "input", "patch"): patch}), nil
	}
	return fill(t, map[string]any{
		firstProp(t, "file_path", "filePath", "path", "absolute_path"): path,
		firstProp(t, "content", "contents", "text"):                    content,
	}), nil
}

// shellCall is a call of the CLI's shell tool running command.
func shellCall(tools []toolDef, command string) (*toolCall, error) {
	t, ok := findTool(tools, shellTools)
	if !ok {
		return nil, fmt.Errorf("modelsim: no shell tool offered (want one of %v, got %v)", shellTools, toolNames(tools))
	}
	key := firstProp(t, "command", "cmd")
	var v any = command
	if propType(t, key) == "array" { // Codex's shell takes an argv
		v = []string{"bash", "-lc", command}
	}
	return fill(t, map[string]any{key: v}), nil
}

func props(t toolDef) map[string]any {
	p, _ := t.schema["properties"].(map[string]any)
	return p
}

// firstProp is the first of names the schema declares, or the first name.
func firstProp(t toolDef, names ...string) string {
	p := props(t)
	for _, n := range names {
		if _, ok := p[n]; ok {
			return n
		}
	}
	return names[0]
}

func propType(t toolDef, name string) string {
	s, _ := props(t)[name].(map[string]any)
	switch ty := s["type"].(type) {
	case string:
		return strings.ToLower(ty) // Gemini's schemas say STRING, ARRAY
	case []any:
		if len(ty) > 0 {
			s, _ := ty[0].(string)
			return s
		}
	}
	return ""
}

// fill completes args with a plain value for every other required
// parameter, so a tool whose schema wants more than the command runs.
func fill(t toolDef, args map[string]any) *toolCall {
	req, _ := t.schema["required"].([]any)
	for _, r := range req {
		name, _ := r.(string)
		if _, ok := args[name]; ok || name == "" {
			continue
		}
		switch propType(t, name) {
		case "boolean":
			args[name] = false
		case "integer", "number":
			args[name] = 0
		case "array":
			args[name] = []any{}
		case "object":
			args[name] = map[string]any{}
		default:
			args[name] = "Simulated " + name
		}
	}
	return &toolCall{name: t.name, args: args}
}

// namedCall is a call of the offered tool called name, or whose name ends
// with it after a separator (the CLIs prefix MCP tools with their server:
// mcp__sudocode__ready, sudocode_ready …), with the JSON object args.
func namedCall(tools []toolDef, name, args string) (*toolCall, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		return nil, fmt.Errorf("modelsim: the arguments of %s are not a JSON object: %v", name, err)
	}
	for _, t := range tools {
		if t.name == name {
			return &toolCall{name: t.name, namespace: t.namespace, args: m}, nil
		}
	}
	for _, t := range tools {
		for _, sep := range []string{"_", ".", "-"} {
			if strings.HasSuffix(t.name, sep+name) {
				return &toolCall{name: t.name, namespace: t.namespace, args: m}, nil
			}
		}
	}
	return nil, fmt.Errorf("modelsim: no tool %s offered (got %v)", name, toolNames(tools))
}
