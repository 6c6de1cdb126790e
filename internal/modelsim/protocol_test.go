package modelsim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The simulator's streams, read as each vendor's client reads them: every
// event is well formed and in the vendor's order, deltas add up to the
// finished values, and the script moves one step per tool result.

const protoScript = "Do it.\n@sim write /tmp/x/hello.txt \"hi\\n\"\n@sim text \"All done, the file is written.\"\n"

type sseEvent struct {
	name string
	data string
}

// readSSE parses a text/event-stream body.
func readSSE(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d, Content-Type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			cur.data += line[len("data: "):]
		default:
			t.Fatalf("not an SSE line: %q", line)
		}
	}
	if cur.data != "" {
		t.Fatalf("stream ended inside an event: %+v", cur)
	}
	return out
}

func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer secret-token")
	req.Header.Set("X-Api-Key", "secret-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func decodeMap(t *testing.T, data string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("event data is not a JSON object: %v: %s", err, data)
	}
	return m
}

var writeSchema = map[string]any{"type": "object", "required": []any{"file_path", "content"},
	"properties": map[string]any{"file_path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}}}

var wantWrite = map[string]any{"file_path": "/tmp/x/hello.txt", "content": "hi\n"}

// anthropicStream reads one Messages stream: the text said, the tool
// inputs called, and the stop reason.
func anthropicStream(t *testing.T, evs []sseEvent) (text []string, inputs []map[string]any, stop string) {
	t.Helper()
	if len(evs) < 3 || evs[0].name != "message_start" || evs[len(evs)-1].name != "message_stop" || evs[len(evs)-2].name != "message_delta" {
		t.Fatalf("stream is not message_start … message_delta, message_stop: %v", evs)
	}
	open, kind := -1, ""
	var buf strings.Builder
	for _, e := range evs {
		m := decodeMap(t, e.data)
		if m["type"] != e.name {
			t.Fatalf("event %q carries type %v", e.name, m["type"])
		}
		idx, _ := m["index"].(float64)
		switch e.name {
		case "content_block_start":
			if open != -1 || int(idx) != len(text)+len(inputs) {
				t.Fatalf("block %v starts while %d is open or out of order", idx, open)
			}
			open, kind = int(idx), obj(m, "content_block")["type"].(string)
			buf.Reset()
		case "content_block_delta":
			d := obj(m, "delta")
			if int(idx) != open {
				t.Fatalf("delta for block %v while %d is open", idx, open)
			}
			switch {
			case kind == "text" && d["type"] == "text_delta":
				buf.WriteString(str(d, "text"))
			case kind == "tool_use" && d["type"] == "input_json_delta":
				buf.WriteString(str(d, "partial_json"))
			default:
				t.Fatalf("delta %v in a %s block", d["type"], kind)
			}
		case "content_block_stop":
			if int(idx) != open {
				t.Fatalf("stop of block %v while %d is open", idx, open)
			}
			if kind == "text" {
				text = append(text, buf.String())
			} else {
				inputs = append(inputs, decodeMap(t, buf.String()))
			}
			open = -1
		case "message_delta":
			stop = str(obj(m, "delta"), "stop_reason")
			if _, ok := obj(m, "usage")["output_tokens"].(float64); !ok {
				t.Fatalf("message_delta has no usage.output_tokens: %s", e.data)
			}
		}
	}
	return text, inputs, stop
}

func TestAnthropicMessages(t *testing.T) {
	sim := Start(t)
	tools := []any{map[string]any{"name": "Write", "input_schema": writeSchema}}
	msgs := []any{map[string]any{"role": "user", "content": protoScript}}
	req := map[string]any{"model": "claude-sim", "stream": true, "max_tokens": 100, "tools": tools, "messages": msgs}

	text, inputs, stop := anthropicStream(t, readSSE(t, post(t, sim.URL+"/v1/messages?beta=true", req)))
	if stop != "tool_use" || len(inputs) != 1 || !reflect.DeepEqual(inputs[0], wantWrite) || len(text) != 1 || text[0] == "" {
		t.Fatalf("first call: text %q, inputs %v, stop %q; want a sentence, then Write %v", text, inputs, stop, wantWrite)
	}
	// The tool result moves the script on to its final text.
	msgs = append(msgs,
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Write", "input": wantWrite}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}}})
	req["messages"] = msgs
	evs := readSSE(t, post(t, sim.URL+"/v1/messages", req))
	text, inputs, stop = anthropicStream(t, evs)
	if stop != "end_turn" || len(inputs) != 0 || strings.Join(text, "") != "All done, the file is written." {
		t.Fatalf("second call: text %q, inputs %v, stop %q", text, inputs, stop)
	}
	if n := strings.Count(strings.Join(func() []string {
		var s []string
		for _, e := range evs {
			s = append(s, e.name)
		}
		return s
	}(), " "), "content_block_delta"); n < 2 {
		t.Fatalf("the final text came in %d delta(s), want it streamed in several", n)
	}

	// Not streamed: the same answer as one message.
	req["stream"] = false
	resp := post(t, sim.URL+"/v1/messages", req)
	var msg struct {
		StopReason string `json:"stop_reason"`
		Content    []struct{ Type, Text string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil || msg.StopReason != "end_turn" || len(msg.Content) != 1 || msg.Content[0].Text != "All done, the file is written." {
		t.Fatalf("non-streamed answer %+v, %v", msg, err)
	}

	resp = post(t, sim.URL+"/v1/messages/count_tokens", map[string]any{"model": "m", "messages": msgs})
	var count struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&count); err != nil || count.InputTokens <= 0 {
		t.Fatalf("count_tokens: %+v, %v", count, err)
	}

	// Recorded without credentials; the tools offered are listed.
	r := sim.Requests()[0]
	if r.API != "anthropic" || r.Header.Get("Authorization") != "" || r.Header.Get("X-Api-Key") != "" || r.Header.Get("Content-Type") == "" {
		t.Fatalf("recorded %+v", r)
	}
	if !reflect.DeepEqual(sim.Tools(), []string{"Write"}) || !reflect.DeepEqual(sim.Calls(), []string{"Write"}) {
		t.Fatalf("tools offered %v, called %v", sim.Tools(), sim.Calls())
	}
}

// A scripted error answers with its status and the vendor's error body; a
// hang answers nothing until the client gives up; an unknown path is a 404
// that the simulator lists.
func TestErrorsHangsAndUnknownPaths(t *testing.T) {
	sim := Start(t)
	tools := []any{map[string]any{"name": "Write", "input_schema": writeSchema}}
	req := map[string]any{"model": "m", "stream": true, "tools": tools,
		"messages": []any{map[string]any{"role": "user", "content": "@sim error 529"}}}
	resp := post(t, sim.URL+"/v1/messages", req)
	var e struct {
		Type  string
		Error struct{ Type, Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); resp.StatusCode != 529 || err != nil || e.Type != "error" || e.Error.Message == "" {
		t.Fatalf("scripted error: status %d, body %+v, %v", resp.StatusCode, e, err)
	}

	req["messages"] = []any{map[string]any{"role": "user", "content": "@sim hang"}}
	b, _ := json.Marshal(req)
	client := &http.Client{Timeout: 300 * time.Millisecond}
	resp, err := client.Post(sim.URL+"/v1/messages", "application/json", bytes.NewReader(b))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("a hanging call answered %d", resp.StatusCode)
	}
	// It is the client that gave up: the call hung, the server did not
	// end it.
	if ne, ok := errors.AsType[net.Error](err); !ok || !ne.Timeout() {
		t.Fatalf("the hanging call ended with %v, want the client's timeout", err)
	}

	// A wait holds the step after it until its file exists.
	gate := filepath.Join(t.TempDir(), "go")
	req["messages"] = []any{map[string]any{"role": "user", "content": "@sim wait " + gate + "\n@sim text \"went\""}}
	b, _ = json.Marshal(req)
	if resp, err := client.Post(sim.URL+"/v1/messages", "application/json", bytes.NewReader(b)); err == nil {
		resp.Body.Close()
		t.Fatalf("a call waiting for a file answered %d before it existed", resp.StatusCode)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if resp := post(t, sim.URL+"/v1/messages", req); resp.Body.Close() != nil || resp.StatusCode != 200 {
		t.Fatalf("the call waiting for a file that exists answered %d", resp.StatusCode)
	}

	resp, err = http.Get(sim.URL + "/v1/telemetry?key=secret")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || !reflect.DeepEqual(sim.Unknown(), []string{"GET /v1/telemetry"}) {
		t.Fatalf("unknown path: status %d, listed %v", resp.StatusCode, sim.Unknown())
	}
}
