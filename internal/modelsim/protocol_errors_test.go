package modelsim

import (
	"encoding/json"
	"fmt"
	"testing"
)

// A scripted error's body names the error type the vendor's API gives for
// its status: clients decide from it whether to retry (OpenCode retries
// for about a minute any failure whose body says server_error, a 400
// included), so a client's mistake must not read as the server's.
func TestErrorBodiesNameTheVendorsTypeForTheStatus(t *testing.T) {
	sim := Start(t)
	cases := []struct {
		path   string
		status int
		want   string
	}{
		{"/v1/chat/completions", 400, "invalid_request_error"},
		{"/v1/chat/completions", 429, "requests"},
		{"/v1/chat/completions", 500, "server_error"},
		{"/v1/responses", 400, "invalid_request_error"},
		{"/v1/responses", 503, "server_error"},
		{"/v1/messages", 400, "invalid_request_error"},
		{"/v1/messages", 401, "authentication_error"},
		{"/v1/messages", 429, "rate_limit_error"},
		{"/v1/messages", 500, "api_error"},
		{"/v1/messages", 529, "overloaded_error"},
	}
	for _, c := range cases {
		prompt := fmt.Sprintf("@sim error %d", c.status)
		// Only a call that offers a tool follows the script.
		var req map[string]any
		switch c.path {
		case "/v1/responses":
			req = map[string]any{"model": "m", "stream": true, "input": prompt,
				"tools": []any{map[string]any{"type": "function", "name": "shell", "parameters": writeSchema}}}
		case "/v1/chat/completions":
			req = map[string]any{"model": "m", "stream": true, "messages": []any{map[string]any{"role": "user", "content": prompt}},
				"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "write", "parameters": writeSchema}}}}
		default:
			req = map[string]any{"model": "m", "stream": true, "max_tokens": 100, "messages": []any{map[string]any{"role": "user", "content": prompt}},
				"tools": []any{map[string]any{"name": "Write", "input_schema": writeSchema}}}
		}
		resp := post(t, sim.URL+c.path, req)
		var body struct {
			Error struct{ Type, Message string }
		}
		err := json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != c.status || body.Error.Type != c.want || body.Error.Message != errorText(c.status) {
			t.Errorf("%s scripted %d: status %d, error %+v (%v); want type %q and message %q",
				c.path, c.status, resp.StatusCode, body.Error, err, c.want, errorText(c.status))
		}
	}
}
