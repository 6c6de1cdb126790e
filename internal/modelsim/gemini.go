package modelsim

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The Gemini API: POST /v1beta/models/{model}:generateContent,
// :streamGenerateContent (?alt=sse) and :countTokens.

type geminiPart struct {
	Text             string          `json:"text"`
	FunctionCall     json.RawMessage `json:"functionCall"`
	FunctionResponse json.RawMessage `json:"functionResponse"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiRequest struct {
	Contents          []geminiContent `json:"contents"`
	SystemInstruction *geminiContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name                 string         `json:"name"`
			Parameters           map[string]any `json:"parameters"`
			ParametersJSONSchema map[string]any `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string         `json:"responseMimeType"`
		ResponseSchema     map[string]any `json:"responseSchema"`
		ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
	} `json:"generationConfig"`
}

func (s *Server) gemini(w http.ResponseWriter, r *http.Request, body []byte, i int) {
	model, method, _ := strings.Cut(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], ":")
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, geminiError(400, "modelsim: body is not a Gemini request: "+err.Error()))
		return
	}
	if method == "countTokens" {
		writeJSON(w, 200, map[string]any{"totalTokens": len(body)/4 + 1})
		return
	}
	if method != "generateContent" && method != "streamGenerateContent" {
		s.annotate(i, "", nil, false)
		writeJSON(w, 404, geminiError(404, "modelsim: no such method "+method))
		return
	}
	gc := req.GenerationConfig
	c := &conversation{jsonMode: gc.ResponseMimeType == "application/json", jsonSchema: gc.ResponseJSONSchema}
	if c.jsonSchema == nil {
		c.jsonSchema = gc.ResponseSchema
	}
	if req.SystemInstruction != nil {
		for _, p := range req.SystemInstruction.Parts {
			c.system += p.Text + "\n"
		}
	}
	for _, ct := range req.Contents {
		t := turn{role: "user"}
		if ct.Role == "model" {
			t.role = "assistant"
		}
		for _, p := range ct.Parts {
			if p.FunctionResponse != nil {
				t.role = "tool"
				t.text += string(p.FunctionResponse) // what the tool answered, for $LAST_ID
			}
			t.text += p.Text
		}
		c.turns = append(c.turns, t)
	}
	for _, tl := range req.Tools {
		for _, f := range tl.FunctionDeclarations {
			schema := f.ParametersJSONSchema
			if schema == nil {
				schema = f.Parameters
			}
			c.tools = append(c.tools, toolDef{name: f.Name, schema: schema})
		}
	}
	s.annotate(i, "gemini", c.tools, true)
	rep, ok := s.planOrFail(w, r, i, c, func(status int, msg string) any { return geminiError(status, msg) })
	if !ok {
		return
	}
	in, out := usage(body, rep)
	use := map[string]any{"promptTokenCount": in, "candidatesTokenCount": out, "totalTokenCount": in + out}
	respID := s.newID("resp")
	resp := func(parts []map[string]any, finish string) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		m := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": respID}
		if finish != "" {
			cand["finishReason"] = finish
			m["usageMetadata"] = use
		}
		return m
	}
	var all []map[string]any
	for _, p := range rep.parts {
		if p.call != nil {
			all = append(all, map[string]any{"functionCall": map[string]any{"name": p.call.name, "args": p.call.args}})
		} else {
			all = append(all, map[string]any{"text": p.text})
		}
	}
	if method == "generateContent" {
		writeJSON(w, 200, resp(all, "STOP"))
		return
	}
	// Streamed: text in chunks, a function call whole, the finish reason
	// and usage on the last chunk.
	var pieces [][]map[string]any
	for _, p := range all {
		if t, ok := p["text"].(string); ok {
			for _, c := range chunks(t) {
				pieces = append(pieces, []map[string]any{{"text": c}})
			}
			continue
		}
		pieces = append(pieces, []map[string]any{p})
	}
	e := startSSE(w)
	for k, p := range pieces {
		finish := ""
		if k == len(pieces)-1 {
			finish = "STOP"
		}
		e.event("", resp(p, finish))
	}
}

func geminiError(code int, msg string) map[string]any {
	status := map[int]string{400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}[code]
	if status == "" {
		status = "UNKNOWN"
	}
	return map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}}
}
