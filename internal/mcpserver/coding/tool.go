package coding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

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
	// run gets validated arguments with defaults applied and returns the
	// structured result's fields (ok and warnings are added), or an error:
	// a *workspace.Error is a tool error; anything else INTERNAL_ERROR.
	run func(ctx context.Context, args json.RawMessage) (map[string]any, error)
}

// readOnly, etc. build the profile's annotation rows (§6.0).
func hints(title string, readOnly, destructive, idempotent, openWorld bool) annotations {
	return annotations{Title: title, ReadOnlyHint: readOnly, DestructiveHint: destructive, IdempotentHint: idempotent, OpenWorldHint: openWorld}
}

// define builds a tool whose runner takes its arguments as In.
func define[In any](name, description string, ann annotations, input *schema, output map[string]any,
	run func(ctx context.Context, in In) (map[string]any, error)) tool {
	return tool{
		Name: name, Title: ann.Title, Description: description, InputSchema: input, Annotations: ann,
		OutputSchema: outputSchema(output),
		run: func(ctx context.Context, raw json.RawMessage) (map[string]any, error) {
			var in In
			if err := json.Unmarshal(raw, &in); err != nil {
				return nil, workspace.Errorf(workspace.CodeInvalidArgument, nil, "arguments: %v", err)
			}
			return run(ctx, in)
		},
	}
}

// outputSchema is a permissive object schema that declares the tool's
// fields, requires only ok, and references the shared error object.
func outputSchema(fields map[string]any) map[string]any {
	props := map[string]any{
		"ok":       map[string]any{"type": "boolean"},
		"warnings": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"error":    map[string]any{"$ref": "#/$defs/tool_error"},
	}
	for k, v := range fields {
		props[k] = v
	}
	return map[string]any{
		"type":       "object",
		"properties": props,
		"required":   []string{"ok"},
		"$defs": map[string]any{"tool_error": map[string]any{
			"type":     "object",
			"required": []string{"code", "message", "category", "retryable", "details"},
			"properties": map[string]any{
				"code":               map[string]any{"type": "string"},
				"message":            map[string]any{"type": "string"},
				"category":           map[string]any{"type": "string", "enum": []string{"validation", "security", "permission", "runtime", "not_found", "internal"}},
				"retryable":          map[string]any{"type": "boolean"},
				"details":            map[string]any{"type": "object"},
				"permission_request": map[string]any{"type": "object"},
			},
		}},
	}
}

// Shorthands for output schema fields.
var (
	tString  = map[string]any{"type": "string"}
	tInt     = map[string]any{"type": "integer"}
	tBool    = map[string]any{"type": "boolean"}
	tObject  = map[string]any{"type": "object"}
	tArray   = map[string]any{"type": "array"}
	tNullInt = map[string]any{"type": []string{"integer", "null"}}
	tNullStr = map[string]any{"type": []string{"string", "null"}}
)

// callResult runs a tool and shapes its outcome as the profile's result:
// structuredContent with ok and warnings, its JSON as the text mirror, and
// isError exactly when ok is false.
func callResult(ctx context.Context, t tool, args json.RawMessage) map[string]any {
	fields, err := safeRun(ctx, t, args)
	var structured map[string]any
	if err != nil {
		var we *workspace.Error
		if !errors.As(err, &we) {
			we = workspace.Errorf(workspace.CodeInternal, nil, "internal error: %v", err)
		}
		structured = map[string]any{}
		for k, v := range fields { // a failing tool may add context (exec's status)
			structured[k] = v
		}
		structured["ok"] = false
		structured["error"] = we
	} else {
		structured = fields
		if structured == nil {
			structured = map[string]any{}
		}
		if _, set := structured["ok"]; !set {
			structured["ok"] = true
		}
	}
	if _, ok := structured["warnings"]; !ok {
		structured["warnings"] = []string{}
	}
	text, _ := marshalCompact(structured)
	res := map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": string(text)}},
		"structuredContent": json.RawMessage(text),
		"isError":           structured["ok"] == false,
	}
	if extra, ok := fields["_content"].([]any); ok { // view_image's image item goes first
		delete(structured, "_content")
		text, _ = marshalCompact(structured)
		res["content"] = append(extra, map[string]any{"type": "text", "text": string(text)})
		res["structuredContent"] = json.RawMessage(text)
	}
	return res
}

// safeRun turns a panic inside a tool into an INTERNAL_ERROR.
func safeRun(ctx context.Context, t tool, args json.RawMessage) (fields map[string]any, err error) {
	defer func() {
		if p := recover(); p != nil {
			fields, err = nil, workspace.Errorf(workspace.CodeInternal, nil, "internal error in %s: %v", t.Name, p)
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

// callerOf is who makes a call: its token's name, else Options.Caller.
func (s *Server) callerOf(ctx context.Context) string {
	if c := mcpx.CallerFrom(ctx); c != "" {
		return c
	}
	return s.opts.Caller
}

// ServerName is the coding server's name in audit lines and metrics.
const ServerName = "coding"

// callTool runs a tools/call through the controls all the servers share
// (mcpx.Calls: the rate limits before, an audit line and the metrics
// after), with the caller (its token's name, else Options.Caller) in ctx
// for the tool. A call refused by a rate limit is the JSON-RPC error
// mcpx.CodeRateLimited with data {retry_after_ms, …}.
func (s *Server) callTool(ctx context.Context, params json.RawMessage) (any, *response) {
	caller := s.callerOf(ctx)
	ctx = procs.WithOwner(mcpx.WithCaller(ctx, caller), caller)
	if s.opts.Calls == nil {
		return s.dispatchTool(ctx, params)
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	json.Unmarshal(orEmpty(params), &p)
	call, limited := s.opts.Calls.Begin(mcpx.CallInfo{Server: ServerName, Client: caller, Tool: p.Name, Args: p.Arguments})
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
