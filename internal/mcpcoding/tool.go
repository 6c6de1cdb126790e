package mcpcoding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/procs"
)

// annotations are a tool's hints, all explicit, with its title.
type annotations struct {
	Title           string `json:"title"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint bool   `json:"destructiveHint"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

// tool is one entry of tools/list with its runner.
type tool struct {
	Name         string         `json:"name"`
	Title        string         `json:"title"`
	Description  string         `json:"description"`
	InputSchema  *schema        `json:"inputSchema"`
	OutputSchema map[string]any `json:"outputSchema"`
	Annotations  annotations    `json:"annotations"`
	// args validates a call's arguments against InputSchema.
	args *mcpx.ArgsSchema
	// run gets validated arguments with defaults applied and returns the
	// tool's result, or an error: a *workspace.Error is a tool error;
	// anything else INTERNAL_ERROR (callResult).
	run func(ctx context.Context, args json.RawMessage) (any, error)
}

// readOnly, etc. build the profile's annotation rows
// (docs/coding-tools.md#annotations).
func hints(title string, readOnly, destructive, idempotent, openWorld bool) annotations {
	return annotations{Title: title, ReadOnlyHint: readOnly, DestructiveHint: destructive, IdempotentHint: idempotent, OpenWorldHint: openWorld}
}

// define builds a tool from its runner: the input schema is derived from
// In, the output schema from Out (derive.go).
func define[In, Out any](name, description string, ann annotations, run func(ctx context.Context, in In) (Out, error)) tool {
	in := inputSchema[In]()
	return tool{
		Name: name, Title: ann.Title, Description: description, Annotations: ann,
		InputSchema: in, OutputSchema: outputSchema[Out](),
		args: mcpx.NewArgsSchema(mcpx.SchemaOf(name, in), reflect.TypeFor[In]()),
		run: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var in In
			if err := json.Unmarshal(raw, &in); err != nil {
				return nil, workspace.Errorf(workspace.CodeInvalidArgument, nil, "arguments: %v", err)
			}
			return run(ctx, in)
		},
	}
}

// failure is a tool error that keeps some of the result's fields beside
// ok and error (exec_command's status, write_stdin's session_id).
type failure struct {
	err    error
	fields any // a struct whose fields are among the tool's output fields
}

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// failWith returns err with fields to show beside it.
func failWith(fields any, err error) error { return &failure{err: err, fields: fields} }

// contentful is a result that returns content items besides the text
// mirror (view_image's image), placed before it.
type contentful interface{ contentItems() []any }

// callResult runs a tool and shapes its outcome as the profile's result:
// structuredContent with ok and warnings, its JSON as the text mirror, and
// isError exactly when ok is false. Whatever the tool returns — a result,
// a *workspace.Error, any other error, a panic, a result that cannot be
// encoded — the outcome is a tool result, never a JSON-RPC error.
func callResult(ctx context.Context, t tool, args json.RawMessage) map[string]any {
	out, err := safeRun(ctx, t, args)
	structured, items, encErr := structuredOf(out, err)
	if encErr != nil {
		structured, items, _ = structuredOf(nil, workspace.Errorf(workspace.CodeInternal, nil,
			"internal error: the result of %s cannot be encoded: %v", t.Name, encErr))
	}
	text, _ := marshalCompact(structured) // decoded JSON: always encodable
	return map[string]any{
		"content":           append(items, map[string]any{"type": "text", "text": string(text)}),
		"structuredContent": json.RawMessage(text),
		"isError":           structured["ok"] == false,
	}
}

// structuredOf is the structured result of a tool's outcome, as decoded
// JSON (so the keys of the result's objects are written sorted) with the
// error object as it is, and the content items that go before the
// mirror.
func structuredOf(out any, err error) (map[string]any, []any, error) {
	var we *workspace.Error
	if err != nil {
		out = nil
		if f, ok := errors.AsType[*failure](err); ok {
			out = f.fields
		}
		if !errors.As(err, &we) {
			we = workspace.Errorf(workspace.CodeInternal, nil, "internal error: %v", err)
		}
	}
	m, encErr := asObject(out)
	if encErr != nil {
		return nil, nil, encErr
	}
	var items []any
	if c, ok := out.(contentful); ok && err == nil {
		items = c.contentItems()
	}
	m["ok"] = we == nil
	if we != nil {
		// The error object keeps its fields in the profile's order
		// (code, message, category, retryable, details).
		if _, encErr = json.Marshal(we); encErr != nil {
			return nil, nil, encErr
		}
		m["error"] = we
	}
	if w, ok := m["warnings"]; !ok || w == nil {
		m["warnings"] = []any{}
	}
	return m, items, nil
}

// asObject is v's JSON as a map (nil: an empty one); numbers stay exact.
func asObject(v any) (map[string]any, error) {
	m := map[string]any{}
	if v == nil {
		return m, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// safeRun turns a panic inside a tool into an INTERNAL_ERROR.
func safeRun(ctx context.Context, t tool, args json.RawMessage) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, workspace.Errorf(workspace.CodeInternal, nil, "internal error in %s: %v", t.Name, p)
		}
	}()
	return t.run(ctx, args)
}

// marshalCompact encodes v as compact JSON with sorted keys and no HTML
// escaping.
func marshalCompact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// callerOf is who makes a call: its token's name, else Transport.Caller.
func (s *Server) callerOf(ctx context.Context) string {
	if c := mcpx.CallerFrom(ctx); c != "" {
		return c
	}
	return s.opts.Transport.Caller
}

// ServerName is the coding server's name in audit lines and metrics.
const ServerName = "coding"

// callTool runs a tools/call through the controls all the servers share
// (mcpx.Calls: the rate limits before, an audit line and the metrics
// after), with the caller (its token's name, else Transport.Caller) in ctx
// for the tool. A call refused by a rate limit is the JSON-RPC error
// mcpx.CodeRateLimited with data {retry_after_ms, …}.
func (s *Server) callTool(ctx context.Context, params json.RawMessage) (any, *response) {
	caller := s.callerOf(ctx)
	ctx = procs.WithOwner(mcpx.WithCaller(ctx, caller), caller)
	if s.opts.Transport.Calls == nil {
		return s.dispatchTool(ctx, params)
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	json.Unmarshal(orEmpty(params), &p)
	call, limited := s.opts.Transport.Calls.Begin(mcpx.CallInfo{Server: ServerName, Client: caller, Tool: p.Name, Args: p.Arguments})
	if limited != nil {
		e := limited.RPCError()
		return nil, errorResponse(nil, int(e.Code), e.Message, e.Data)
	}
	res, rerr := s.dispatchTool(ctx, params)
	_, known := s.byName[p.Name]
	switch r, _ := res.(map[string]any); {
	case rerr != nil:
		call.End(mcpx.OutcomeProtocolError, known, rerr.Error.Message)
	case r["isError"] == true:
		call.End(mcpx.OutcomeError, known, "")
	default:
		call.End(mcpx.OutcomeOK, known, "")
	}
	return res, rerr
}
