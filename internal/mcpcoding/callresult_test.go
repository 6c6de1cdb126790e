package mcpcoding

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/sudocode/sudocode/internal/workspace"
)

// TestEveryFailureIsAToolResult: whatever a tool hands back — a plain
// error, a failure with a profile code whose details cannot be encoded, a
// result that cannot be encoded, a panic — the client gets a tool result
// with isError and INTERNAL_ERROR (or the tool's code), never a JSON-RPC
// error.
func TestEveryFailureIsAToolResult(t *testing.T) {
	type nanOut struct {
		X float64 `json:"x"`
	}
	ann := hints("Test", true, false, true, false)
	cases := []struct {
		tool tool
		code string
	}{
		{define("plain_error", "d", ann, func(context.Context, struct{}) (*nanOut, error) {
			return nil, errors.New("disk on fire")
		}), "INTERNAL_ERROR"},
		{define("bad_details", "d", ann, func(context.Context, struct{}) (*nanOut, error) {
			return nil, workspace.Errorf(workspace.CodeNotFound, map[string]any{"x": math.NaN()}, "gone")
		}), "INTERNAL_ERROR"},
		{define("bad_result", "d", ann, func(context.Context, struct{}) (*nanOut, error) {
			return &nanOut{X: math.Inf(1)}, nil
		}), "INTERNAL_ERROR"},
		{define("panics", "d", ann, func(context.Context, struct{}) (*nanOut, error) {
			panic("boom")
		}), "INTERNAL_ERROR"},
		{define("fails_with_fields", "d", ann, func(context.Context, struct{}) (*nanOut, error) {
			return nil, failWith(struct {
				X float64 `json:"x"`
			}{math.NaN()}, workspace.Errorf(workspace.CodeNotFound, nil, "gone"))
		}), "INTERNAL_ERROR"},
	}
	s := testServer(t, Options{})
	p := connect(s.sdk, nil)
	defer p.Close()
	s.handleMessage(context.Background(), p, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`))
	for _, tc := range cases {
		s.tools = append(s.tools, tc.tool)
		s.byName[tc.tool.Name] = tc.tool
		s.sdk.AddTool(tc.tool.def(), s.handler(tc.tool))
		raw := s.handleMessage(context.Background(), p, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tc.tool.Name+`","arguments":{}}}`)).body
		var resp struct {
			Error  *json.RawMessage `json:"error"`
			Result struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					OK    *bool `json:"ok"`
					Error struct {
						Code string `json:"code"`
					} `json:"error"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil {
			t.Fatalf("%s: %v in %s", tc.tool.Name, err, raw)
		}
		sc := resp.Result.StructuredContent
		if resp.Error != nil || !resp.Result.IsError || sc.OK == nil || *sc.OK || sc.Error.Code != tc.code {
			t.Errorf("%s: got %s, want a tool result with isError and %s", tc.tool.Name, raw, tc.code)
		}
	}
}
