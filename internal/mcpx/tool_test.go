package mcpx

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/sudocode/sudocode/internal/fault"
)

type decodeTarget struct {
	Name  string   `json:"name"`
	Tags  []string `json:"tags,omitempty"`
	Count int      `json:"count,omitempty"`
	Flag  bool     `json:"flag,omitempty"`
	Inner *struct {
		Value string `json:"value"`
	} `json:"inner,omitempty"`
}

// invalidParams asserts err is a JSON-RPC -32602 error and returns its message.
func invalidParams(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		t.Fatal("got no error, want a -32602 error")
	}
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		t.Fatalf("error %v (%T) is not a *jsonrpc.Error", err, err)
	}
	if werr.Code != -32602 {
		t.Fatalf("code = %d, want -32602 (message %q)", werr.Code, werr.Message)
	}
	return werr.Message
}

func TestDecodeArgsAccepts(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want decodeTarget
	}{
		{`{"name":"python_style_guide","tags":["python","style"],"count":3,"flag":true}`,
			decodeTarget{Name: "python_style_guide", Tags: []string{"python", "style"}, Count: 3, Flag: true}},
		{`  {"name":"x"}  `, decodeTarget{Name: "x"}},
		{"\n{\"name\":\"x\"}\n", decodeTarget{Name: "x"}},
		{`{}`, decodeTarget{}},
		{`{"tags":[]}`, decodeTarget{Tags: []string{}}},
	} {
		var got decodeTarget
		if err := DecodeArgs(json.RawMessage(tc.raw), &got); err != nil {
			t.Errorf("DecodeArgs(%s): %v", tc.raw, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DecodeArgs(%s) = %+v, want %+v", tc.raw, got, tc.want)
		}
	}
}

func TestDecodeArgsNullOrEmptyIsNoArguments(t *testing.T) {
	for _, raw := range []json.RawMessage{nil, {}, json.RawMessage("null"), json.RawMessage("  null "), json.RawMessage("   ")} {
		got := decodeTarget{Name: "untouched"}
		if err := DecodeArgs(raw, &got); err != nil {
			t.Errorf("DecodeArgs(%q): %v", raw, err)
		}
		if got.Name != "untouched" || got.Tags != nil {
			t.Errorf("DecodeArgs(%q) changed the target: %+v", raw, got)
		}
	}
	// A tool without parameters takes an empty struct.
	var none struct{}
	if err := DecodeArgs(nil, &none); err != nil {
		t.Errorf("DecodeArgs(nil, &struct{}{}): %v", err)
	}
	msg := invalidParams(t, DecodeArgs(json.RawMessage(`{"x":1}`), &none))
	if want := "unknown parameter 'x': this tool takes no parameters"; msg != want {
		t.Errorf("a parameter given to a tool that takes none: %q, want %q", msg, want)
	}
}

func TestDecodeArgsUnknownParameter(t *testing.T) {
	var v decodeTarget
	msg := invalidParams(t, DecodeArgs(json.RawMessage(`{"name":"x","nmae":"y"}`), &v))
	if want := "unknown parameter 'nmae'; expected: name, tags, count, flag, inner"; msg != want {
		t.Errorf("message = %q, want %q", msg, want)
	}
}

func TestDecodeArgsWrongType(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`{"name":42}`, "invalid parameter 'name': expected string, got number"},
		{`{"name":true}`, "invalid parameter 'name': expected string, got bool"},
		{`{"name":["a"]}`, "invalid parameter 'name': expected string, got array"},
		{`{"name":{"a":1}}`, "invalid parameter 'name': expected string, got object"},
		{`{"tags":"python"}`, "invalid parameter 'tags': expected array, got string"},
		{`{"count":"3"}`, "invalid parameter 'count': expected number, got string"},
		{`{"flag":"yes"}`, "invalid parameter 'flag': expected boolean, got string"},
		{`{"inner":"v"}`, "invalid parameter 'inner': expected object, got string"},
	} {
		var v decodeTarget
		msg := invalidParams(t, DecodeArgs(json.RawMessage(tc.raw), &v))
		if msg != tc.want {
			t.Errorf("DecodeArgs(%s): message = %q, want %q", tc.raw, msg, tc.want)
		}
	}
}

func TestDecodeArgsNotAnObject(t *testing.T) {
	for _, raw := range []string{`[]`, `["name"]`, `"python_style_guide"`, `42`, `true`} {
		var v decodeTarget
		msg := invalidParams(t, DecodeArgs(json.RawMessage(raw), &v))
		if want := "arguments must be a JSON object"; msg != want {
			t.Errorf("DecodeArgs(%s): message = %q, want %q", raw, msg, want)
		}
	}
	var v decodeTarget
	msg := invalidParams(t, DecodeArgs(json.RawMessage(`{"name":"a"}{"name":"b"}`), &v))
	if want := "arguments must be a single JSON object"; msg != want {
		t.Errorf("two objects: message = %q, want %q", msg, want)
	}
	msg = invalidParams(t, DecodeArgs(json.RawMessage(`{"name":`), &v))
	if want := "malformed arguments: "; len(msg) < len(want) || msg[:len(want)] != want {
		t.Errorf("truncated object: message = %q, want the prefix %q", msg, want)
	}
}

func TestErrorConstructors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int64
		msg  string
	}{
		{InvalidParams("bad"), jsonrpc.CodeInvalidParams, "bad"},
		{MissingParam("name", "the ruleset's name"), jsonrpc.CodeInvalidParams, "missing required parameter 'name': the ruleset's name"},
		{InternalError("boom"), jsonrpc.CodeInternalError, "boom"},
		{ProtocolError("failed to retrieve ruleset", fault.New(fault.NotFound, "ruleset 'x' not found")),
			jsonrpc.CodeInternalError, "failed to retrieve ruleset: ruleset 'x' not found"},
		{ProtocolError("failed to retrieve ruleset", fault.New(fault.Invalid, "invalid ruleset name 'X'")),
			jsonrpc.CodeInvalidParams, "failed to retrieve ruleset: invalid ruleset name 'X'"},
		{ProtocolError("failed", errors.New("plain")), jsonrpc.CodeInternalError, "failed: plain"},
	} {
		var werr *jsonrpc.Error
		if !errors.As(tc.err, &werr) {
			t.Errorf("%v is %T, not a *jsonrpc.Error", tc.err, tc.err)
			continue
		}
		if werr.Code != tc.code || werr.Message != tc.msg {
			t.Errorf("got (%d, %q), want (%d, %q)", werr.Code, werr.Message, tc.code, tc.msg)
		}
	}
}

func TestToolResults(t *testing.T) {
	r := Text("Successfully upserted ruleset 'x'")
	if r.IsError || len(r.Content) != 1 {
		t.Fatalf("Text: %+v", r)
	}
	e := TextError(Prefixed("failed to retrieve ruleset", fault.New(fault.NotFound, "ruleset 'x' not found").WithHint("a hint")))
	if !e.IsError || len(e.Content) != 1 {
		t.Fatalf("TextError: %+v", e)
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	// The hint is never part of the text: the specification fixes it.
	if want := `{"content":[{"type":"text","text":"failed to retrieve ruleset: ruleset 'x' not found"}],"isError":true}`; string(b) != want {
		t.Errorf("TextError wire form:\n got %s\nwant %s", b, want)
	}
}
