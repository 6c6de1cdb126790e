package modelsim

import (
	"encoding/json"
	"net/http"
	"time"
)

// The OpenAI Responses API (POST /v1/responses), streamed.

type responsesRequest struct {
	Model        string          `json:"model"`
	Stream       bool            `json:"stream"`
	Instructions string          `json:"instructions"`
	Input        json.RawMessage `json:"input"`
	Tools        []responsesTool `json:"tools"`
}

// responsesTool is a tool, or a namespace of tools (Codex offers each MCP
// server's tools as one, called with the namespace named in the call).
type responsesTool struct {
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Parameters map[string]any  `json:"parameters"`
	Tools      []responsesTool `json:"tools"`
}

type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Output  json.RawMessage `json:"output"`
}

// openAIText is the text of a string or an array of content parts.
func openAIText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	text := ""
	for _, p := range parts {
		text += p.Text + "\n"
	}
	return text
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request, body []byte, i int) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, openAIError(400, "modelsim: body is not a Responses request: "+err.Error()))
		return
	}
	c := &conversation{system: req.Instructions}
	var items []responsesItem
	if err := json.Unmarshal(req.Input, &items); err != nil {
		c.turns = append(c.turns, turn{role: "user", text: openAIText(req.Input)})
	}
	for _, it := range items {
		switch it.Type {
		case "message", "":
			role := it.Role
			if role != "user" && role != "assistant" {
				c.system += "\n" + openAIText(it.Content)
				continue
			}
			c.turns = append(c.turns, turn{role: role, text: openAIText(it.Content)})
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			c.turns = append(c.turns, turn{role: "tool", text: openAIText(it.Output)})
		}
	}
	for _, t := range req.Tools {
		if t.Name == "" {
			continue // hosted tools (web_search) have no name
		}
		if t.Type == "namespace" {
			for _, nt := range t.Tools {
				c.tools = append(c.tools, toolDef{name: nt.Name, namespace: t.Name, custom: nt.Type == "custom", schema: nt.Parameters})
			}
			continue
		}
		c.tools = append(c.tools, toolDef{name: t.Name, custom: t.Type == "custom", schema: t.Parameters})
	}
	s.annotate(i, "responses", c.tools, true)
	rep, ok := s.planOrFail(w, r, i, c, func(status int, msg string) any { return openAIError(status, msg) })
	if !ok {
		return
	}
	in, out := usage(body, rep)
	resp := map[string]any{"id": s.newID("resp"), "object": "response", "created_at": time.Now().Unix(),
		"model": req.Model, "status": "in_progress", "output": []any{}}
	e := startSSE(w)
	seq := 0
	emit := func(typ string, fields map[string]any) {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		e.event(typ, fields)
	}
	emit("response.created", map[string]any{"response": resp})
	emit("response.in_progress", map[string]any{"response": resp})
	var output []any
	for idx, p := range rep.parts {
		if p.call == nil {
			id := s.newID("msg")
			emit("response.output_item.added", map[string]any{"output_index": idx,
				"item": map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
			emit("response.content_part.added", map[string]any{"item_id": id, "output_index": idx, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, piece := range chunks(p.text) {
				emit("response.output_text.delta", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "delta": piece})
			}
			emit("response.output_text.done", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "text": p.text})
			done := map[string]any{"type": "output_text", "text": p.text, "annotations": []any{}}
			emit("response.content_part.done", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "part": done})
			item := map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant", "content": []any{done}}
			emit("response.output_item.done", map[string]any{"output_index": idx, "item": item})
			output = append(output, item)
			continue
		}
		callID := s.newID("call")
		if p.call.custom {
			id := s.newID("ctc")
			item := map[string]any{"id": id, "type": "custom_tool_call", "status": "in_progress", "call_id": callID, "name": p.call.name, "input": ""}
			emit("response.output_item.added", map[string]any{"output_index": idx, "item": item})
			for _, piece := range chunks(p.call.input) {
				emit("response.custom_tool_call_input.delta", map[string]any{"item_id": id, "output_index": idx, "delta": piece})
			}
			emit("response.custom_tool_call_input.done", map[string]any{"item_id": id, "output_index": idx, "input": p.call.input})
			item = map[string]any{"id": id, "type": "custom_tool_call", "status": "completed", "call_id": callID, "name": p.call.name, "input": p.call.input}
			emit("response.output_item.done", map[string]any{"output_index": idx, "item": item})
			output = append(output, item)
			continue
		}
		id := s.newID("fc")
		args := p.call.argsJSON()
		fc := func(status, args string) map[string]any {
			item := map[string]any{"id": id, "type": "function_call", "status": status, "call_id": callID, "name": p.call.name, "arguments": args}
			if p.call.namespace != "" {
				item["namespace"] = p.call.namespace
			}
			return item
		}
		emit("response.output_item.added", map[string]any{"output_index": idx, "item": fc("in_progress", "")})
		for _, piece := range chunks(args) {
			emit("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": idx, "delta": piece})
		}
		emit("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": idx, "arguments": args})
		item := fc("completed", args)
		emit("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
	}
	resp["status"], resp["output"] = "completed", output
	resp["usage"] = map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + out}
	emit("response.completed", map[string]any{"response": resp})
}

// openAIError is OpenAI's error body for status: its type is what the API
// gives for that status (a client's mistake is invalid_request_error, only
// a 5xx is server_error). Clients read it: OpenCode retries, for about a
// minute, any failure whose body says server_error, whatever its status.
func openAIError(status int, msg string) map[string]any {
	typ := "invalid_request_error"
	switch {
	case status == 429:
		typ = "requests"
	case status >= 500:
		typ = "server_error"
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil, "param": nil}}
}
