package modelsim

import (
	"encoding/json"
	"net/http"
	"time"
)

// The OpenAI Chat Completions API (POST /v1/chat/completions), streaming
// or not.

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, body []byte, i int) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, openAIError(400, "modelsim: body is not a Chat Completions request: "+err.Error()))
		return
	}
	c := &conversation{}
	for _, m := range req.Messages {
		switch m.Role {
		case "user", "assistant", "tool":
			c.turns = append(c.turns, turn{role: m.Role, text: openAIText(m.Content)})
		default: // system, developer
			c.system += "\n" + openAIText(m.Content)
		}
	}
	for _, t := range req.Tools {
		c.tools = append(c.tools, toolDef{name: t.Function.Name, schema: t.Function.Parameters})
	}
	s.annotate(i, "chat", c.tools, true)
	rep, ok := s.planOrFail(w, r, i, c, func(status int, msg string) any { return openAIError(status, msg) })
	if !ok {
		return
	}
	in, out := usage(body, rep)
	id, created := s.newID("chatcmpl"), time.Now().Unix()
	finish, text := "stop", ""
	var calls []map[string]any
	for _, p := range rep.parts {
		if p.call == nil {
			text += p.text
			continue
		}
		finish = "tool_calls"
		calls = append(calls, map[string]any{"index": len(calls), "id": s.newID("call"), "type": "function",
			"function": map[string]any{"name": p.call.name, "arguments": p.call.argsJSON()}})
	}
	use := map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		writeJSON(w, 200, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": use})
		return
	}
	e := startSSE(w)
	chunk := func(delta map[string]any, finish any) {
		e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if text != "" {
		for _, piece := range chunks(text) {
			chunk(map[string]any{"content": piece}, nil)
		}
	}
	for _, c := range calls {
		fn := c["function"].(map[string]any)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": c["index"], "id": c["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil)
		for _, piece := range chunks(fn["arguments"].(string)) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": c["index"], "function": map[string]any{"arguments": piece}}}}, nil)
		}
	}
	chunk(map[string]any{}, finish)
	if req.StreamOptions.IncludeUsage {
		e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{}, "usage": use})
	}
	e.event("", "[DONE]")
}
