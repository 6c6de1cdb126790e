package mcpcoding

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sudocode/sudocode/internal/workspace"
)

// Every schema a tool publishes is derived from its Go types, so the schema and
// what the code reads and writes cannot drift apart. The SDK's inference
// (jsonschema.For) gives the properties: JSON names, types, descriptions from
// `jsonschema:"…"` tags, and as required the fields without omitempty. What the
// profile fixes beside a type — defaults and bounds of an argument
// (docs/coding-tools.md#tools) — is a `schema:"…"` tag on the same field:
//
//	default=V    the default (parsed as the field's type; a list is
//	             "|"-separated, "default=" with nothing is empty)
//	implicit     the default is published but not filled in (the tool
//	             derives it from other arguments)
//	min=N max=N  integer bounds
//	minLength=N  string length
//	enum=a|b|c   allowed strings

// inputSchema derives a tool's input schema from In (a struct).
func inputSchema[In any]() *schema {
	t := reflect.TypeFor[In]()
	js, err := jsonschema.ForType(t, nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %s: %v", t, err)) // a programming error, found by every test
	}
	s := fromInferred(js)
	if s.Required == nil {
		s.Required = []string{}
	}
	s.AdditionalProperties = false
	for _, f := range reflect.VisibleFields(t) {
		name := jsonName(f)
		if name == "" {
			continue
		}
		if err := s.Properties[name].refine(f); err != nil {
			panic(fmt.Sprintf("input schema of %s.%s: %v", t, f.Name, err))
		}
	}
	return s
}

// fromInferred is an inferred schema in the profile's vocabulary. An
// argument given as null counts as absent (schema.validate), so "null" is
// dropped from the types jsonschema.For gives pointers and slices.
func fromInferred(js *jsonschema.Schema) *schema {
	s := &schema{Type: js.Type, Description: js.Description}
	if s.Type == "" {
		s.Type = nonNull(js.Types)
	}
	if js.Items != nil {
		s.Items = fromInferred(js.Items)
	}
	if len(js.Properties) > 0 {
		s.Properties = map[string]*schema{}
		for _, name := range js.PropertyOrder {
			s.Properties[name] = fromInferred(js.Properties[name])
			s.order = append(s.order, name)
		}
		s.Required = js.Required
	}
	// A map's values (env: strings); a map of anything takes any value.
	if ap := js.AdditionalProperties; ap != nil && len(js.Properties) == 0 && (ap.Type != "" || len(ap.Types) > 0) {
		s.AdditionalProperties = fromInferred(ap)
	}
	return s
}

func nonNull(types []string) string {
	for _, t := range types {
		if t != "null" {
			return t
		}
	}
	return ""
}

// refine applies a field's schema tag.
func (s *schema) refine(f reflect.StructField) error {
	tag, ok := f.Tag.Lookup("schema")
	if !ok {
		return nil
	}
	for item := range strings.SplitSeq(tag, ",") {
		key, val, _ := strings.Cut(item, "=")
		var err error
		switch key {
		case "default":
			s.Default, err = parseDefault(f.Type, val)
		case "implicit":
			s.implicit = true
		case "min":
			s.Minimum, err = atoiPtr(val)
		case "max":
			s.Maximum, err = atoiPtr(val)
		case "minLength":
			s.MinLength, err = atoiPtr(val)
		case "enum":
			s.Enum = strings.Split(val, "|")
		default:
			err = fmt.Errorf("unknown schema tag key %q", key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func atoiPtr(s string) (*int, error) {
	n, err := strconv.Atoi(s)
	return &n, err
}

// parseDefault reads a default as a value of type t.
func parseDefault(t reflect.Type, v string) (any, error) {
	switch t.Kind() {
	case reflect.String:
		return v, nil
	case reflect.Bool:
		return strconv.ParseBool(v)
	case reflect.Int, reflect.Int64:
		return strconv.Atoi(v)
	case reflect.Slice:
		if v == "" {
			return []string{}, nil
		}
		return strings.Split(v, "|"), nil
	case reflect.Map:
		if v != "" {
			return nil, fmt.Errorf("a map's default can only be empty")
		}
		return map[string]string{}, nil
	}
	return nil, fmt.Errorf("no default for a %s", t)
}

func jsonName(f reflect.StructField) string {
	if f.Anonymous || !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

// outputSchema derives a tool's output schema from Out (a struct, or a pointer
// to one) as the profile wants it (docs/coding-tools.md#output-schemas): an
// object that declares the result's fields and the common ones (ok, warnings,
// error), requires only ok, and never forbids additional properties. A field is
// nullable only where its JSON can be null (a pointer without omitempty).
func outputSchema[Out any]() map[string]any {
	t := reflect.TypeFor[Out]()
	js := inferOutput(t)
	js.Type, js.Types = "object", nil
	if js.Properties == nil {
		js.Properties = map[string]*jsonschema.Schema{}
	}
	js.Properties["ok"] = &jsonschema.Schema{Type: "boolean"}
	if _, ok := js.Properties["warnings"]; !ok {
		js.Properties["warnings"] = &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}}
	}
	js.Properties["error"] = &jsonschema.Schema{Ref: "#/$defs/tool_error"}
	js.Required = []string{"ok"}
	js.Defs = map[string]*jsonschema.Schema{"tool_error": toolErrorSchema()}
	return schemaMap(js)
}

// toolErrorSchema is the error object's schema, from toolError,
// with the profile's closed sets of codes and categories.
func toolErrorSchema() *jsonschema.Schema {
	js := inferOutput(reflect.TypeFor[toolError]())
	for _, c := range workspace.Codes() {
		js.Properties["code"].Enum = append(js.Properties["code"].Enum, string(c))
	}
	for _, c := range workspace.Categories() {
		js.Properties["category"].Enum = append(js.Properties["category"].Enum, string(c))
	}
	return js
}

func inferOutput(t reflect.Type) *jsonschema.Schema {
	js, err := jsonschema.ForType(t, nil)
	if err != nil {
		panic(fmt.Sprintf("output schema of %s: %v", t, err)) // a programming error, found by every test
	}
	permissive(t, js)
	return js
}

// permissive walks a schema with its Go type: no additionalProperties
// (docs/coding-tools.md#output-schemas), and "null" kept (last, as the profile
// writes it) only for pointer fields without omitempty, which encode nil as
// null; slices and omitempty pointers never do.
func permissive(t reflect.Type, js *jsonschema.Schema) {
	js.AdditionalProperties = nil
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			p := js.Properties[jsonName(f)]
			if p == nil {
				continue
			}
			_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			p.Types = slices.DeleteFunc(p.Types, func(s string) bool { return s == "null" })
			if f.Type.Kind() == reflect.Pointer && !strings.Contains(opts, "omitempty") {
				p.Types = append(p.Types, "null")
			}
			if len(p.Types) == 1 {
				p.Type, p.Types = p.Types[0], nil
			}
			permissive(f.Type, p)
		}
	case reflect.Slice, reflect.Array:
		if js.Items != nil {
			permissive(t.Elem(), js.Items)
		}
	}
}

// schemaMap is a schema as a JSON object (published with sorted keys, as
// every object the server writes).
func schemaMap(js *jsonschema.Schema) map[string]any {
	b, err := json.Marshal(js)
	if err != nil {
		panic(fmt.Sprintf("output schema: %v", err))
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}
