package fault

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// TestEnvelopeJSON: the envelope is exactly {"error":{"code","message","hint"}},
// with the code and hint found through wrapping, and hint null when absent.
func TestEnvelopeJSON(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("open: %w", New(NotFound, "issue 'x' not found").WithHint("list issues")),
			`{"error":{"code":"not_found","message":"open: issue 'x' not found","hint":"list issues"}}`},
		{errors.New("boom"), `{"error":{"code":"internal","message":"boom","hint":null}}`},
		// a reason and details are a surface's (the coding tools'); the envelope has neither
		{&Error{Code: PermissionDenied, Msg: "path outside", Reason: "PATH_OUTSIDE_WORKSPACE", Details: map[string]any{"path": ".."}},
			`{"error":{"code":"permission_denied","message":"path outside","hint":null}}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(EnvelopeOf(c.err))
		if err != nil || string(b) != c.want {
			t.Errorf("EnvelopeOf(%v) = %s, %v; want %s", c.err, b, err, c.want)
		}
	}
}
