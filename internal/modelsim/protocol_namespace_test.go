package modelsim

import "testing"

// Codex offers each MCP server's tools as a Responses namespace when the
// model has no tool search: a script's call of one of them is a
// function_call naming the tool and its namespace.
func TestOpenAIResponsesNamespacedTool(t *testing.T) {
	sim := Start(t)
	tools := []any{
		map[string]any{"type": "function", "name": "exec_command", "parameters": map[string]any{"type": "object"}},
		map[string]any{"type": "namespace", "name": "mcp__sudocode", "description": "tracker", "tools": []any{
			map[string]any{"type": "function", "name": "add_feedback", "parameters": map[string]any{"type": "object",
				"properties": map[string]any{"issue_id": map[string]any{"type": "string"}}, "required": []any{"issue_id"}}},
		}},
	}
	input := []any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text",
		"text": "@sim call add_feedback \"{\\\"issue_id\\\":\\\"app-1\\\"}\"\n"}}}}
	req := map[string]any{"model": "gpt-sim", "stream": true, "tools": tools, "input": input}
	evs := readSSE(t, post(t, sim.URL+"/v1/responses", req))
	items, _ := responsesStream(t, evs)
	if len(items) != 2 || items[1]["type"] != "function_call" || items[1]["name"] != "add_feedback" ||
		items[1]["namespace"] != "mcp__sudocode" || items[1]["arguments"] != `{"issue_id":"app-1"}` {
		t.Fatalf("items: %v", items)
	}
	for _, e := range evs {
		if m := decodeMap(t, e.data); e.name == "response.output_item.added" && obj(m, "item")["type"] == "function_call" &&
			obj(m, "item")["namespace"] != "mcp__sudocode" {
			t.Fatalf("the call's added item has no namespace: %s", e.data)
		}
	}
}
