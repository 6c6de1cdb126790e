package mcptracker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcptracker"
	"github.com/sudocode/sudocode/internal/mcpx/schematest"
)

// fixture is a client session on a tracker server whose Dir is dir.
type fixture struct {
	t       testing.TB
	cs      *mcp.ClientSession
	dir     string
	schemas *schematest.Checker // every result is checked against its tool's output schema
}

// connect serves a server with opts over in-memory transports; an empty
// opts.Dir is a new temporary directory (without a tracker).
func connect(t testing.TB, opts mcptracker.Options) *fixture {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	if opts.Actor == "" {
		opts.Actor = "agent-1"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	f := connectServer(t, mcptracker.New(opts))
	f.dir = opts.Dir
	return f
}

// connectServer connects a client to server over in-memory transports.
func connectServer(t testing.TB, server *mcp.Server) *fixture {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return &fixture{t: t, cs: cs, schemas: schematest.New(t, cs)}
}

// initialised is a fixture whose directory has a tracker (prefix sudocode).
func initialised(t testing.TB, opts mcptracker.Options) *fixture {
	t.Helper()
	f := connect(t, opts)
	f.ok("init", nil)
	return f
}

// call calls a tool; a protocol error fails the test. It checks the
// result's form: one text, and structured content that is the text's JSON
// (a list wrapped as {"results": list}) or, for a tool error, {"error": …}.
func (f *fixture) call(name string, args map[string]any) *mcp.CallToolResult {
	f.t.Helper()
	res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		f.t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	if len(res.Content) != 1 {
		f.t.Fatalf("%s: %d content items, want 1", name, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	f.schemas.Check(f.t, name, res)
	if res.IsError {
		var body struct {
			Error *struct {
				Code    string  `json:"code"`
				Message string  `json:"message"`
				Hint    *string `json:"hint"`
			} `json:"error"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &body); err != nil || body.Error == nil || body.Error.Code == "" || !strings.HasPrefix(text, body.Error.Message) {
			f.t.Fatalf("%s: tool error %q with structured content %s, want {\"error\": {code, message, hint}}", name, text, b)
		}
		return res
	}
	var fromText any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		f.t.Fatalf("%s: text is not JSON: %q", name, text)
	}
	if _, isObject := fromText.(map[string]any); !isObject {
		fromText = map[string]any{"results": fromText}
	}
	b, _ := json.Marshal(res.StructuredContent)
	var structured any
	json.Unmarshal(b, &structured)
	if !reflect.DeepEqual(fromText, structured) {
		f.t.Fatalf("%s: structured content %s is not the text %s", name, b, text)
	}
	return res
}

// ok calls a tool that must succeed and returns its JSON text.
func (f *fixture) ok(name string, args map[string]any) val {
	f.t.Helper()
	res := f.call(name, args)
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		f.t.Fatalf("%s(%v): tool error %s", name, args, text)
	}
	return parse(f.t, text)
}

// toolErr is a tool error's structured body.
type toolErr struct {
	Code, Message string
	Hint          string
	Text          string
}

// fails calls a tool that must return a tool error with code.
func (f *fixture) fails(name string, args map[string]any, code string) toolErr {
	f.t.Helper()
	res := f.call(name, args)
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError {
		f.t.Fatalf("%s(%v) succeeded with %s, want a %s tool error", name, args, text, code)
	}
	e := res.StructuredContent.(map[string]any)["error"].(map[string]any)
	te := toolErr{Code: e["code"].(string), Message: e["message"].(string), Text: text}
	if h, ok := e["hint"].(string); ok {
		te.Hint = h
		if !strings.HasSuffix(text, "\nHint: "+h) {
			f.t.Errorf("%s: text %q does not end with the hint %q", name, text, h)
		}
	}
	if te.Code != code {
		f.t.Fatalf("%s(%v): error code %s (%s), want %s", name, args, te.Code, text, code)
	}
	return te
}

// rpcError calls a tool that must fail with JSON-RPC -32602 whose message
// holds want.
func (f *fixture) rpcError(name string, args map[string]any, want string) {
	f.t.Helper()
	_, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	checkRPC(f.t, err, want)
}

// rpcErr calls a tool that must fail with a JSON-RPC -32602 error and
// returns its message.
func (f *fixture) rpcErr(name string, args map[string]any) string {
	f.t.Helper()
	_, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	checkRPC(f.t, err, "")
	var rpc *jsonrpc.Error
	errors.As(err, &rpc)
	return rpc.Message
}

func checkRPC(t testing.TB, err error, want string) {
	t.Helper()
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		t.Fatalf("want JSON-RPC error -32602 %q, got %v", want, err)
	}
	if rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, want) {
		t.Fatalf("got JSON-RPC error %d %q, want -32602 with %q", rpc.Code, rpc.Message, want)
	}
}

// tools returns tools/list.
func (f *fixture) tools() []*mcp.Tool {
	f.t.Helper()
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return res.Tools
}

// val is a decoded JSON value with accessors that fail the test.
type val struct {
	t testing.TB
	v any
}

func parse(t testing.TB, text string) val {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not JSON: %q", text)
	}
	return val{t, v}
}

// at follows object keys and (numeric) array indexes.
func (v val) at(path ...any) val {
	v.t.Helper()
	cur := v.v
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				v.t.Fatalf("%v: not an object at %q", path, k)
			}
			if cur, ok = m[k]; !ok {
				v.t.Fatalf("%v: no key %q in %s", path, k, mustJSON(m))
			}
		case int:
			a, ok := cur.([]any)
			if !ok || k >= len(a) {
				v.t.Fatalf("%v: no index %d in %s", path, k, mustJSON(cur))
			}
			cur = a[k]
		}
	}
	return val{v.t, cur}
}

func (v val) str(path ...any) string {
	v.t.Helper()
	s, ok := v.at(path...).v.(string)
	if !ok {
		v.t.Fatalf("%v: %s is not a string", path, mustJSON(v.at(path...).v))
	}
	return s
}

func (v val) num(path ...any) int {
	v.t.Helper()
	n, ok := v.at(path...).v.(json.Number)
	if !ok {
		v.t.Fatalf("%v: %s is not a number", path, mustJSON(v.at(path...).v))
	}
	i, _ := n.Int64()
	return int(i)
}

func (v val) list(path ...any) []val {
	v.t.Helper()
	a, ok := v.at(path...).v.([]any)
	if !ok {
		v.t.Fatalf("%v: %s is not a list", path, mustJSON(v.at(path...).v))
	}
	out := make([]val, len(a))
	for i, e := range a {
		out[i] = val{v.t, e}
	}
	return out
}

func (v val) has(key string) bool {
	m, ok := v.v.(map[string]any)
	_, found := m[key]
	return ok && found
}

// eq checks the value at path equals want as JSON.
func (v val) eq(want any, path ...any) {
	v.t.Helper()
	got := mustJSON(v.at(path...).v)
	if w := mustJSON(want); got != w {
		v.t.Errorf("%v = %s, want %s", path, got, w)
	}
}

// ids returns the "id" of each element of the list at path.
func (v val) ids(path ...any) []string {
	v.t.Helper()
	var out []string
	for _, e := range v.list(path...) {
		out = append(out, e.str("id"))
	}
	return out
}

func (v val) String() string { return mustJSON(v.v) }

func mustJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSpace(b.String())
}
