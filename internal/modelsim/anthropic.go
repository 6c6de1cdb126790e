package modelsim

import (
	"encoding/json"
	"net/http"
)

// The Anthropic Messages API (POST /v1/messages), streaming or not.

type anthropicRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string         `json:"name"`
		InputSchema map[string]any `json:"input_schema"`
	} `json:"tools"`
}

type anthropicBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
}

// anthropicText is the text of a string or an array of blocks; a content
// of tool_result blocks marks a tool turn.
func anthropicText(raw json.RawMessage) (text string, toolResult bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, false
	}
	var blocks []anthropicBlock
	_ = json.Unmarshal(raw, &blocks)
	for _, b := range blocks {
		switch b.Type {
		case "text":
			text += b.Text + "\n"
		case "tool_result":
			toolResult = true
			t, _ := anthropicText(b.Content)
			text += t + "\n"
		}
	}
	return text, toolResult
}

func (s *Server) anthropic(w http.ResponseWriter, r *http.Request, body []byte, i int) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, anthropicError("invalid_request_error", "modelsim: body is not a Messages request: "+err.Error()))
		return
	}
	c := &conversation{}
	c.system, _ = anthropicText(req.System)
	for _, m := range req.Messages {
		text, tr := anthropicText(m.Content)
		role := m.Role
		if tr {
			role = "tool"
		}
		c.turns = append(c.turns, turn{role: role, text: text})
	}
	for _, t := range req.Tools {
		c.tools = append(c.tools, toolDef{name: t.Name, schema: t.InputSchema})
	}
	s.annotate(i, "anthropic", c.tools, true)
	rep, ok := s.planOrFail(w, r, i, c, func(status int, msg string) any { return anthropicError(anthropicErrorType(status), msg) })
	if !ok {
		return
	}
	in, out := usage(body, rep)
	id := s.newID("msg")
	stop := "end_turn"
	var content []map[string]any
	for _, p := range rep.parts {
		if p.call != nil {
			stop = "tool_use"
			content = append(content, map[string]any{"type": "tool_use", "id": s.newID("toolu"), "name": p.call.name, "input": p.call.args})
		} else {
			content = append(content, map[string]any{"type": "text", "text": p.text})
		}
	}
	msg := map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
	if !req.Stream {
		msg["content"], msg["stop_reason"] = content, stop
		msg["usage"] = map[string]any{"input_tokens": in, "output_tokens": out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
		writeJSON(w, 200, msg)
		return
	}
	e := startSSE(w)
	msg["content"] = []any{}
	e.event("message_start", map[string]any{"type": "message_start", "message": msg})
	for idx, b := range content {
		if b["type"] == "tool_use" {
			start := map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": start})
			js, _ := json.Marshal(b["input"])
			for _, piece := range chunks(string(js)) {
				e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
			}
		} else {
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range chunks(b["text"].(string)) {
				e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
					"delta": map[string]any{"type": "text_delta", "text": piece}})
			}
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
	}
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"input_tokens": in, "output_tokens": out}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicErrorType is the error type Anthropic's API gives with status.
func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	if status < 500 {
		return "invalid_request_error"
	}
	return "api_error"
}

func anthropicError(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}
