package mcpcoding

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/workspace"
)

// TestToolErrorKeys: every code's wire error has exactly the profile's keys
// (docs/coding-tools.md#errors), with the table's category and retryable
// flag.
func TestToolErrorKeys(t *testing.T) {
	for _, c := range workspace.Codes() {
		e := toolErrorOf(workspace.Errorf(c, nil, "m"))
		b, _ := json.Marshal(e)
		var m map[string]any
		json.Unmarshal(b, &m)
		k := workspace.Classify(workspace.Errorf(c, nil, "m"))
		if len(m) != 5 || m["details"] == nil || m["code"] != string(c) || m["message"] != "m" ||
			m["category"] != string(k.Category) || m["retryable"] != k.Retryable {
			t.Errorf("%s: wire error %s, want code, message, category, retryable and details", c, b)
		}
	}
}

// TestToolErrorOf: the error object is the first failure in the chain with
// a profile code, its message without the wrapping; any other error, a
// fault without a reason among them, is INTERNAL_ERROR with its text; a
// reason made without Errorf that is not a code is INTERNAL_ERROR with the
// reason in details.code.
func TestToolErrorOf(t *testing.T) {
	wrapped := fmt.Errorf("listing: %w", workspace.Errorf(workspace.CodeNotFound, map[string]any{"path": "a"}, "a not found"))
	cases := []struct {
		err  error
		want string
	}{
		{wrapped, `{"code":"NOT_FOUND","message":"a not found","category":"not_found","retryable":false,"details":{"path":"a"}}`},
		{fault.New(fault.NotFound, "gone"), `{"code":"INTERNAL_ERROR","message":"internal error: gone","category":"internal","retryable":false,"details":{}}`},
		{errors.New("boom"), `{"code":"INTERNAL_ERROR","message":"internal error: boom","category":"internal","retryable":false,"details":{}}`},
		{&fault.Error{Code: fault.Invalid, Msg: "odd", Reason: "ODD"}, `{"code":"INTERNAL_ERROR","message":"odd","category":"internal","retryable":false,"details":{"code":"ODD"}}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(toolErrorOf(c.err))
		if err != nil || string(b) != c.want {
			t.Errorf("toolErrorOf(%v) = %s, %v; want %s", c.err, b, err, c.want)
		}
	}
}
