package mcpcoding

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/procs"
)

// annotations are a tool's hints, with its title.
type annotations struct {
	Title                                                        string
	ReadOnlyHint, DestructiveHint, IdempotentHint, OpenWorldHint bool
}

// tool is one tool of tools/list with its runner.
type tool struct {
	Name         string
	Title        string
	Description  string
	InputSchema  *schema
	OutputSchema map[string]any
	Annotations  annotations
	// args validates a call's arguments against InputSchema.
	args *mcpx.ArgsSchema
	// run gets validated arguments with defaults applied and returns the
	// tool's result, or an error: a *fault.Error with one of the
	// profile's codes (workspace.Errorf) is a tool error; anything else
	// INTERNAL_ERROR (callResult, toolErrorOf).
	run func(ctx context.Context, args json.RawMessage) (any, error)
}

// def is the tool's definition as the SDK lists it: every hint written,
// false ones included, as the profile's annotation rows have them.
func (t tool) def() *mcp.Tool {
	a := t.Annotations
	return &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
		Annotations: &mcp.ToolAnnotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: &a.DestructiveHint,
			IdempotentHint: a.IdempotentHint, OpenWorldHint: &a.OpenWorldHint}}
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
	// request is a policy refusal's permission request, which the error
	// object repeats.
	request *refusalRequest
}

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// failWith returns err with fields to show beside it.
func failWith(fields any, err error) error { return &failure{err: err, fields: fields} }

// contentful is a result that returns content items besides the text
// mirror (view_image's image), placed before it.
type contentful interface{ contentItems() []mcp.Content }

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

// handler is the tool's SDK handler. The SDK has looked the tool up; the
// controls every server shares (mcpx.Install: rate limits, audit,
// metrics) wrap it. Arguments that fail the input schema are the
// profile's -32602 with a reason (docs/coding-tools.md#results), not a
// tool error: the handler reports them as a JSON-RPC error, which the SDK
// passes on as it is.
func (s *Server) handler(t tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// The front has checked that arguments is an object, or null or
		// absent (front.go).
		var args map[string]any
		if json.Unmarshal(req.Params.Arguments, &args); args == nil {
			args = map[string]any{}
		}
		raw, err := t.checkArgs(args)
		if err != nil {
			return nil, rpcErr(codeInvalidParams, "Invalid arguments for "+t.Name+": "+err.Error(),
				map[string]any{"reason": "invalid_arguments", "code": workspace.CodeInvalidArgument})
		}
		caller := s.callerOf(ctx)
		start := time.Now()
		res, structured := callResult(procs.WithOwner(ctx, caller), t, raw)
		if s.opts.Trace && s.opts.TraceOut != nil {
			s.trace(t.Name, args, structured, time.Since(start))
		}
		return res, nil
	}
}
