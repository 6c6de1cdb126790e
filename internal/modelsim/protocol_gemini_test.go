package modelsim

import (
	"encoding/json"
	"reflect"
	"testing"
)

// geminiStream reads one streamGenerateContent?alt=sse stream: the text,
// the function calls, and the finish reason and usage of the last chunk.
func geminiStream(t *testing.T, evs []sseEvent) (text string, calls []map[string]any, finish string, usage map[string]any) {
	t.Helper()
	for i, e := range evs {
		m := decodeMap(t, e.data)
		cands, _ := m["candidates"].([]any)
		if len(cands) != 1 {
			t.Fatalf("chunk %d has %d candidates", i, len(cands))
		}
		c := cands[0].(map[string]any)
		if str(obj(c, "content"), "role") != "model" {
			t.Fatalf("chunk %d: content role %v", i, obj(c, "content")["role"])
		}
		for _, p := range obj(c, "content")["parts"].([]any) {
			pm := p.(map[string]any)
			text += str(pm, "text")
			if fc := obj(pm, "functionCall"); fc != nil {
				calls = append(calls, fc)
			}
		}
		if f := str(c, "finishReason"); f != "" {
			if i != len(evs)-1 {
				t.Fatalf("finishReason on chunk %d of %d", i, len(evs))
			}
			finish, usage = f, obj(m, "usageMetadata")
		}
	}
	return text, calls, finish, usage
}

func TestGeminiGenerateContent(t *testing.T) {
	sim := Start(t)
	tools := []any{map[string]any{"functionDeclarations": []any{
		map[string]any{"name": "write_file", "parametersJsonSchema": writeSchema},
		map[string]any{"name": "run_shell_command", "parametersJsonSchema": map[string]any{"type": "object",
			"properties": map[string]any{"command": map[string]any{"type": "string"}}, "required": []any{"command"}}},
	}}}
	contents := []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": protoScript}}}}
	req := map[string]any{"contents": contents, "tools": tools}
	url := sim.URL + "/v1beta/models/gemini-sim:streamGenerateContent?alt=sse&key=secret"

	text, calls, finish, usage := geminiStream(t, readSSE(t, post(t, url, req)))
	if text == "" || len(calls) != 1 || calls[0]["name"] != "write_file" || !reflect.DeepEqual(calls[0]["args"], wantWrite) || finish != "STOP" {
		t.Fatalf("first call: text %q, calls %v, finish %q", text, calls, finish)
	}
	if usage["promptTokenCount"] == nil || usage["totalTokenCount"] == nil {
		t.Fatalf("usageMetadata %v", usage)
	}
	contents = append(contents,
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": calls[0]}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "write_file", "response": map[string]any{"output": "ok"}}}}})
	req["contents"] = contents
	evs := readSSE(t, post(t, url, req))
	text, calls, _, _ = geminiStream(t, evs)
	if text != "All done, the file is written." || len(calls) != 0 || len(evs) < 2 {
		t.Fatalf("second call: text %q in %d chunks, calls %v", text, len(evs), calls)
	}

	// Not streamed: one response.
	resp := post(t, sim.URL+"/v1beta/models/gemini-sim:generateContent", req)
	var one struct {
		Candidates []struct {
			Content struct {
				Parts []struct{ Text string }
			}
			FinishReason string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&one); err != nil || len(one.Candidates) != 1 || one.Candidates[0].FinishReason != "STOP" ||
		one.Candidates[0].Content.Parts[0].Text != "All done, the file is written." {
		t.Fatalf("generateContent: %+v, %v", one, err)
	}

	// A JSON side query gets an object that fits its schema.
	schema := map[string]any{"type": "OBJECT", "required": []any{"next_speaker", "reasoning"}, "properties": map[string]any{
		"reasoning":    map[string]any{"type": "STRING"},
		"next_speaker": map[string]any{"type": "STRING", "enum": []any{"user", "model"}},
	}}
	req = map[string]any{"contents": contents, "generationConfig": map[string]any{"responseMimeType": "application/json", "responseJsonSchema": schema}}
	resp = post(t, sim.URL+"/v1beta/models/gemini-flash:generateContent", req)
	if err := json.NewDecoder(resp.Body).Decode(&one); err != nil || len(one.Candidates) != 1 {
		t.Fatalf("JSON query: %+v, %v", one, err)
	}
	var answer map[string]any
	if err := json.Unmarshal([]byte(one.Candidates[0].Content.Parts[0].Text), &answer); err != nil || answer["next_speaker"] != "user" || str(answer, "reasoning") == "" {
		t.Fatalf("JSON query answered %q (%v)", one.Candidates[0].Content.Parts[0].Text, err)
	}

	resp = post(t, sim.URL+"/v1beta/models/gemini-sim:countTokens", map[string]any{"contents": contents})
	var count struct{ TotalTokens int }
	if err := json.NewDecoder(resp.Body).Decode(&count); err != nil || count.TotalTokens <= 0 {
		t.Fatalf("countTokens: %+v, %v", count, err)
	}
	// The API key in the query is not recorded.
	if p := sim.Requests()[0].Path; p != "/v1beta/models/gemini-sim:streamGenerateContent?alt=sse" {
		t.Fatalf("recorded path %q", p)
	}
}

// str is m[key] as a string.
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// obj is m[key] as an object.
func obj(m map[string]any, key string) map[string]any {
	o, _ := m[key].(map[string]any)
	return o
}
