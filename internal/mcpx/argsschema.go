package mcpx

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/fault"
)

// ArgsSchema checks a tool call's arguments against the input schema the
// tool publishes, with the JSON Schema validator the SDK's typed tools use
// (jsonschema-go), before the handler runs: a call the schema refuses never
// reaches the handler, so handlers do not repeat the schema's checks.
//
// A call of the wrong shape — an unknown parameter, a missing one, one of
// the wrong type, a number out of its bounds, a string under its minLength
// — is a JSON-RPC -32602 error worded here, naming the parameter. Any other
// value the schema does not allow (outside its enumeration) is a
// fault.Invalid naming the values allowed, which NewTool answers with the
// surface's invalid-argument tool error: a model acts on a tool error.
//
// With EmptyIsMissing (NewTool's tools), a rule goes beyond the schema's
// words: a required parameter sent empty ("" or []) is missing, as null
// is — it names nothing.
type ArgsSchema struct {
	EmptyIsMissing bool

	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	// missing words what a missing top-level parameter should hold (the
	// `missing` tag of In's field), where the description is not the
	// wording wanted.
	missing map[string]string
	// names are the parameters in declaration order, for the message of
	// an unknown one.
	names []string
}

// NewArgsSchema resolves s, the input schema of a tool whose input type is
// t. It panics on a schema that does not resolve: a programming error.
func NewArgsSchema(s *jsonschema.Schema, t reflect.Type) *ArgsSchema {
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("input schema of %v: %v", t, err))
	}
	a := &ArgsSchema{schema: s, resolved: r, missing: missingTags(t), names: paramNames(t)}
	if len(a.names) == 0 {
		for name := range s.Properties {
			a.names = append(a.names, name)
		}
		slices.Sort(a.names)
	}
	return a
}

// Check validates raw arguments; its error is a -32602 naming the
// parameter, or a fault.Invalid for a value the schema does not allow.
// The validator judges; the arguments are walked again, to word the
// error, only when it refuses them.
func (a *ArgsSchema) Check(raw json.RawMessage) error {
	var v any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			return InvalidParams("malformed arguments: " + err.Error())
		}
	}
	if v == nil {
		v = map[string]any{}
	}
	args, ok := v.(map[string]any)
	if !ok {
		return InvalidParams("arguments must be a JSON object")
	}
	err := a.resolved.Validate(args)
	if err == nil && !a.emptyRequired(a.schema, args) {
		return nil
	}
	if msg := a.objectProblem(a.schema, "", args); msg != "" {
		return InvalidParams(msg)
	}
	if err == nil {
		return nil
	}
	return fault.New(fault.Invalid, "%s", a.schemaMessage(err, args))
}

// emptyRequired reports whether, with EmptyIsMissing, a required
// parameter of obj (or of an object in one of its lists) is empty.
func (a *ArgsSchema) emptyRequired(s *jsonschema.Schema, obj map[string]any) bool {
	if !a.EmptyIsMissing {
		return false
	}
	for _, name := range s.Required {
		if empty(obj[name]) {
			return true
		}
	}
	for name, v := range obj {
		p := s.Properties[name]
		if p == nil {
			continue
		}
		if list, ok := v.([]any); ok && p.Items != nil && len(p.Items.Required) > 0 {
			for _, it := range list {
				if m, ok := it.(map[string]any); ok && a.emptyRequired(p.Items, m) {
					return true
				}
			}
		}
	}
	return false
}

// missingTags are the `missing` tags of t's fields by JSON name.
func missingTags(t reflect.Type) map[string]string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	tags := map[string]string{}
	for _, f := range reflect.VisibleFields(t) {
		if d, ok := f.Tag.Lookup("missing"); ok {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			tags[name] = d
		}
	}
	return tags
}

// inputSchemaOf is def's input schema as the validator takes it.
func inputSchemaOf(def *mcp.Tool) *jsonschema.Schema {
	if s, ok := def.InputSchema.(*jsonschema.Schema); ok {
		return s
	}
	return SchemaOf(def.Name, def.InputSchema)
}

// SchemaOf is a schema published in another form (its JSON is a schema's).
func SchemaOf(name string, v any) *jsonschema.Schema {
	b, err := json.Marshal(v)
	var s jsonschema.Schema
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		panic(fmt.Sprintf("input schema of %s: %v", name, err))
	}
	return &s
}
