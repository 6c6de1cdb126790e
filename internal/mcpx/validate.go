package mcpx

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

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
	return fault.New(fault.Invalid, "%s", a.schemaMessage(err))
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

// objectProblem words the first way obj fails s, in the order a caller
// fixes them: an unknown parameter, a missing one, a mistyped or out of
// bounds one. It is "" when none of these is wrong (the validator then
// judges the rest, enumerations among it).
func (a *ArgsSchema) objectProblem(s *jsonschema.Schema, path string, obj map[string]any) string {
	if closed(s) {
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if _, ok := s.Properties[k]; ok {
				continue
			}
			msg := fmt.Sprintf("unknown parameter '%s'", k)
			switch {
			case path != "":
			case len(a.names) == 0:
				msg += ": this tool takes no parameters"
			default:
				msg += "; expected: " + strings.Join(a.names, ", ")
			}
			return msg
		}
	}
	for _, name := range s.Required {
		if v := obj[name]; v == nil || (a.EmptyIsMissing && empty(v)) {
			return fmt.Sprintf("missing required parameter '%s': %s", path+name, a.details(s, path, name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		if p := s.Properties[name]; p != nil && obj[name] != nil {
			if msg := a.valueProblem(p, path+name, obj[name]); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// valueProblem words how v fails s's type, looking into the items of a
// list and the fields of an object. A list's item of the wrong type names
// the list.
func (a *ArgsSchema) valueProblem(s *jsonschema.Schema, path string, v any) string {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
		return fmt.Sprintf("invalid parameter '%s': expected %s, got %s", path, expected(types), got(v))
	}
	switch x := v.(type) {
	case string:
		if s.MinLength != nil && utf8.RuneCountInString(x) < *s.MinLength {
			if *s.MinLength == 1 {
				return fmt.Sprintf("invalid parameter '%s': must not be empty", path)
			}
			return fmt.Sprintf("invalid parameter '%s': must be at least %d characters", path, *s.MinLength)
		}
	case float64:
		if (s.Minimum != nil && x < *s.Minimum) || (s.Maximum != nil && x > *s.Maximum) {
			return fmt.Sprintf("invalid parameter '%s': %s", path, bounds(s))
		}
	case []any:
		if s.Items == nil {
			return ""
		}
		for i, it := range x {
			if _, isObject := it.(map[string]any); isObject {
				if msg := a.valueProblem(s.Items, fmt.Sprintf("%s[%d]", path, i), it); msg != "" {
					return msg
				}
			} else if msg := a.valueProblem(s.Items, path, it); msg != "" {
				return msg
			}
		}
	case map[string]any:
		if s.Properties != nil {
			return a.objectProblem(s, path+".", x)
		}
	}
	return ""
}

// details is what a missing parameter should hold: its `missing` tag, else
// its description.
func (a *ArgsSchema) details(s *jsonschema.Schema, path, name string) string {
	if d, ok := a.missing[name]; ok && path == "" {
		return d
	}
	if p := s.Properties[name]; p != nil && p.Description != "" {
		return p.Description
	}
	return "this tool needs it"
}

// closed reports whether s refuses properties it does not name.
func closed(s *jsonschema.Schema) bool {
	ap := s.AdditionalProperties
	return ap != nil && ap.Not != nil && reflect.ValueOf(*ap.Not).IsZero()
}

// bounds words the range a number must be in, with its default.
func bounds(s *jsonschema.Schema) string {
	var msg string
	switch {
	case s.Minimum != nil && s.Maximum != nil:
		msg = fmt.Sprintf("must be between %v and %v", *s.Minimum, *s.Maximum)
	case s.Minimum != nil:
		msg = fmt.Sprintf("must be at least %v", *s.Minimum)
	default:
		msg = fmt.Sprintf("must be at most %v", *s.Maximum)
	}
	if len(s.Default) > 0 {
		msg += fmt.Sprintf(" (default %s)", s.Default)
	}
	return msg
}

func empty(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	}
	return false
}

func hasType(v any, t string) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case float64:
		return t == "number" || (t == "integer" && x == math.Trunc(x) && !math.IsInf(x, 0))
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

// expected names the types a parameter takes, in the words JSON decoding
// errors use (an integer is a number; null is not worth naming).
func expected(types []string) string {
	var words []string
	for _, t := range types {
		switch t {
		case "null":
			continue
		case "integer":
			t = "number"
		}
		if !slices.Contains(words, t) {
			words = append(words, t)
		}
	}
	return strings.Join(words, " or ")
}

func got(v any) string {
	switch x := v.(type) {
	case bool:
		return "bool"
	case string:
		return "string"
	case float64:
		if x != math.Trunc(x) {
			return fmt.Sprintf("number %v", x)
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

var (
	// schemaPath finds the parameter a validator's message is about.
	schemaPath = regexp.MustCompile(`validating /properties/([^/:]+)`)
	// schemaScopes are the "validating <where>: " prefixes of its message.
	schemaScopes = regexp.MustCompile(`validating [^:]*: `)
)

// schemaMessage words a validator's error: the parameter it is about and
// its reason; for a value outside an enumeration, the values allowed.
func (a *ArgsSchema) schemaMessage(err error) string {
	msg := err.Error()
	reason := schemaScopes.ReplaceAllString(msg, "")
	m := schemaPath.FindStringSubmatch(msg)
	if m == nil {
		return "invalid arguments: " + reason
	}
	if p := a.schema.Properties[m[1]]; p != nil && strings.HasPrefix(reason, "enum: ") {
		if p.Items != nil {
			p = p.Items
		}
		var values []string
		for _, v := range p.Enum {
			if v != nil {
				values = append(values, fmt.Sprint(v))
			}
		}
		reason = "must be one of " + strings.Join(values, ", ")
	}
	return fmt.Sprintf("invalid parameter '%s': %s", m[1], reason)
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

// InputSchemaOf is def's input schema as the validator takes it.
func InputSchemaOf(def *mcp.Tool) *jsonschema.Schema {
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
