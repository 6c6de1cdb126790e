package modelsim

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// responsesStream reads one Responses stream: the finished output items,
// checked against the deltas that built them.
func responsesStream(t *testing.T, evs []sseEvent) (items []map[string]any, usage map[string]any) {
	t.Helper()
	if len(evs) < 2 || evs[0].name != "response.created" || evs[len(evs)-1].name != "response.completed" {
		t.Fatalf("stream is not response.created … response.completed: %v", evs)
	}
	built := map[string]*strings.Builder{} // item id → text or arguments from deltas
	for i, e := range evs {
		m := decodeMap(t, e.data)
		if m["type"] != e.name || m["sequence_number"] != float64(i) {
			t.Fatalf("event %d %q carries type %v, sequence_number %v", i, e.name, m["type"], m["sequence_number"])
		}
		id := str(m, "item_id")
		switch e.name {
		case "response.output_item.added":
			built[str(obj(m, "item"), "id")] = &strings.Builder{}
		case "response.output_text.delta", "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
			built[id].WriteString(str(m, "delta"))
		case "response.output_text.done":
			if built[id].String() != str(m, "text") {
				t.Fatalf("text deltas %q, done %q", built[id].String(), str(m, "text"))
			}
		case "response.function_call_arguments.done":
			if built[id].String() != str(m, "arguments") {
				t.Fatalf("argument deltas %q, done %q", built[id].String(), str(m, "arguments"))
			}
		case "response.custom_tool_call_input.done":
			if built[id].String() != str(m, "input") {
				t.Fatalf("input deltas %q, done %q", built[id].String(), str(m, "input"))
			}
		case "response.output_item.done":
			items = append(items, obj(m, "item"))
		case "response.completed":
			r := obj(m, "response")
			if r["status"] != "completed" || len(r["output"].([]any)) != len(items) {
				t.Fatalf("response.completed: %s", e.data)
			}
			usage = obj(r, "usage")
		}
	}
	return items, usage
}

func TestOpenAIResponses(t *testing.T) {
	sim := Start(t)
	tools := []any{
		map[string]any{"type": "function", "name": "exec_command", "parameters": map[string]any{"type": "object",
			"properties": map[string]any{"cmd": map[string]any{"type": "string"}}, "required": []any{"cmd"}}},
		map[string]any{"type": "custom", "name": "apply_patch", "format": map[string]any{"type": "grammar"}},
		map[string]any{"type": "web_search"},
	}
	input := []any{
		map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "<cwd>/work/repo</cwd>"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text",
			"text": "Go.\n@sim write hello.txt \"hi\"\n@sim shell \"git status\"\n@sim text \"Both done now.\"\n"}}},
	}
	req := map[string]any{"model": "gpt-sim", "stream": true, "tools": tools, "input": input}

	items, usage := responsesStream(t, readSSE(t, post(t, sim.URL+"/v1/responses", req)))
	if len(items) != 2 || items[0]["type"] != "message" || items[1]["type"] != "custom_tool_call" || items[1]["name"] != "apply_patch" {
		t.Fatalf("first call's items: %v", items)
	}
	wantPatch := "*** Begin Patch\n*** Add File: /work/repo/hello.txt\n+hi\n*** End Patch\n"
	if items[1]["input"] != wantPatch {
		t.Fatalf("apply_patch input %q, want %q", items[1]["input"], wantPatch)
	}
	if usage["input_tokens"].(float64) <= 0 || usage["total_tokens"] == nil {
		t.Fatalf("usage %v", usage)
	}

	input = append(input, items[0], items[1], map[string]any{"type": "custom_tool_call_output", "call_id": items[1]["call_id"], "output": "Done!"})
	req["input"] = input
	items, _ = responsesStream(t, readSSE(t, post(t, sim.URL+"/v1/responses", req)))
	if len(items) != 2 || items[1]["type"] != "function_call" || items[1]["name"] != "exec_command" {
		t.Fatalf("second call's items: %v", items)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(str(items[1], "arguments")), &args); err != nil || args["cmd"] != "git status" {
		t.Fatalf("exec_command arguments %q: %v", items[1]["arguments"], err)
	}

	input = append(input, items[0], items[1], map[string]any{"type": "function_call_output", "call_id": items[1]["call_id"], "output": "clean"})
	req["input"] = input
	items, _ = responsesStream(t, readSSE(t, post(t, sim.URL+"/v1/responses", req)))
	content, _ := items[0]["content"].([]any)
	if len(items) != 1 || len(content) != 1 || str(content[0].(map[string]any), "text") != "Both done now." {
		t.Fatalf("last call's items: %v", items)
	}
	if !reflect.DeepEqual(sim.Tools(), []string{"exec_command", "apply_patch"}) {
		t.Fatalf("tools offered %v", sim.Tools())
	}
}

// chatStream reads one Chat Completions stream: the content, the tool
// calls' names and arguments, the finish reason and the usage chunk.
func chatStream(t *testing.T, evs []sseEvent) (content string, calls [][2]string, finish string, usage map[string]any) {
	t.Helper()
	if len(evs) == 0 || evs[len(evs)-1].data != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %v", evs)
	}
	for _, e := range evs[:len(evs)-1] {
		m := decodeMap(t, e.data)
		if m["object"] != "chat.completion.chunk" {
			t.Fatalf("chunk object %v", m["object"])
		}
		if u := obj(m, "usage"); u != nil {
			usage = u
		}
		for _, c := range m["choices"].([]any) {
			ch := c.(map[string]any)
			d := obj(ch, "delta")
			content += str(d, "content")
			tcs, _ := d["tool_calls"].([]any)
			for _, tc := range tcs {
				tcm := tc.(map[string]any)
				i := int(tcm["index"].(float64))
				if i == len(calls) {
					calls = append(calls, [2]string{})
				}
				fn := obj(tcm, "function")
				calls[i][0] += str(fn, "name")
				calls[i][1] += str(fn, "arguments")
			}
			if f := str(ch, "finish_reason"); f != "" {
				finish = f
			}
		}
	}
	return content, calls, finish, usage
}

func TestOpenAIChatCompletions(t *testing.T) {
	sim := Start(t)
	tools := []any{
		map[string]any{"type": "function", "function": map[string]any{"name": "bash", "parameters": map[string]any{"type": "object",
			"properties": map[string]any{"command": map[string]any{"type": "string"}, "description": map[string]any{"type": "string"}},
			"required":   []any{"command", "description"}}}},
	}
	msgs := []any{
		map[string]any{"role": "system", "content": "You are a test."},
		map[string]any{"role": "user", "content": "@sim shell \"ls -la\"\n@sim text \"Listed the files for you.\""},
	}
	req := map[string]any{"model": "sim", "stream": true, "stream_options": map[string]any{"include_usage": true}, "tools": tools, "messages": msgs}
	content, calls, finish, usage := chatStream(t, readSSE(t, post(t, sim.URL+"/v1/chat/completions", req)))
	if content == "" || finish != "tool_calls" || len(calls) != 1 || calls[0][0] != "bash" {
		t.Fatalf("first call: content %q, calls %v, finish %q", content, calls, finish)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(calls[0][1]), &args); err != nil || args["command"] != "ls -la" || args["description"] == "" {
		t.Fatalf("bash arguments %q (%v): want the command and a description, which its schema requires", calls[0][1], err)
	}
	if usage == nil || usage["total_tokens"] == nil {
		t.Fatalf("no usage chunk though include_usage was asked")
	}
	msgs = append(msgs,
		map[string]any{"role": "assistant", "content": content, "tool_calls": []any{map[string]any{"id": "c1", "type": "function",
			"function": map[string]any{"name": "bash", "arguments": calls[0][1]}}}},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": "file.txt"})
	req["messages"] = msgs
	content, calls, finish, _ = chatStream(t, readSSE(t, post(t, sim.URL+"/v1/chat/completions", req)))
	if content != "Listed the files for you." || finish != "stop" || len(calls) != 0 {
		t.Fatalf("second call: content %q, calls %v, finish %q", content, calls, finish)
	}
	// A call without tools (a title request) does not follow the script.
	delete(req, "tools")
	content, _, _, _ = chatStream(t, readSSE(t, post(t, sim.URL+"/v1/chat/completions", req)))
	if content != sideAnswer {
		t.Fatalf("tool-less call answered %q, want %q", content, sideAnswer)
	}
}
