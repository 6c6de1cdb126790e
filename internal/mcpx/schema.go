package mcpx

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaProvider is a type whose JSON is not what its Go fields say (it
// has its own MarshalJSON): it states the schema of that JSON beside the
// encoding, and the derived schemas use it.
type SchemaProvider interface{ JSONSchema() *jsonschema.Schema }

var (
	marshalerType = reflect.TypeFor[json.Marshaler]()
	providerType  = reflect.TypeFor[SchemaProvider]()
)

// derive is the schema of t, a type of the tools' inputs or outputs: the
// go-sdk's inference (field descriptions from jsonschema tags), with the
// schemas of the types that state their own, and any JSON for a raw
// message. It panics on a type with its own MarshalJSON and no schema:
// its derived schema would describe fields that are not what it sends.
func derive(t reflect.Type) *jsonschema.Schema {
	types := map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {}}
	collectSchemas(t, types, map[reflect.Type]bool{})
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		panic(fmt.Sprintf("schema of %v: %v", t, err))
	}
	return s
}

// collectSchemas walks t's fields and elements, recording the schema of
// each type that provides one.
func collectSchemas(t reflect.Type, types map[reflect.Type]*jsonschema.Schema, seen map[reflect.Type]bool) {
	if seen[t] {
		return
	}
	seen[t] = true
	if _, known := types[t]; known {
		return
	}
	if t.Implements(providerType) {
		types[t] = reflect.Zero(t).Interface().(SchemaProvider).JSONSchema()
		return
	}
	if t.Kind() != reflect.Pointer && t.Implements(marshalerType) && t.PkgPath() != "time" {
		panic(fmt.Sprintf("%v has its own MarshalJSON: give it a JSONSchema method (mcpx.SchemaProvider)", t))
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		collectSchemas(t.Elem(), types, seen)
	case reflect.Map:
		collectSchemas(t.Elem(), types, seen)
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			if f.IsExported() || f.Anonymous {
				collectSchemas(f.Type, types, seen)
			}
		}
	}
}

// Schema derives a tool's input schema from In and sets the given
// defaults and enumerations on its properties, so that a model sees them.
func Schema[In any](defaults map[string]any, enums map[string][]string) *jsonschema.Schema {
	s := derive(reflect.TypeFor[In]())
	requiredNotNull(s)
	for name, v := range defaults {
		p := s.Properties[name]
		if p == nil {
			panic("schema default for unknown property " + name)
		}
		raw, _ := json.Marshal(v)
		p.Default = raw
	}
	for name, values := range enums {
		p := s.Properties[name]
		if p == nil {
			panic("schema enum for unknown property " + name)
		}
		target := p
		if p.Items != nil {
			target = p.Items
		}
		for _, v := range values {
			target.Enum = append(target.Enum, v)
		}
	}
	return s
}

// outputSchema is the schema of the structured content of Out's results:
// Out's own when it is an object, else {"results": Out}; with the
// surface's error shape as an alternative when it has one.
func outputSchema[Out any](sf Surface) *jsonschema.Schema {
	t := reflect.TypeFor[Out]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s := derive(t)
	arraysNotNull(s)
	if s.Type != "object" {
		s = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"results": s},
			Required: []string{"results"}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	}
	if sf.FailSchema != nil {
		s = &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{s, sf.FailSchema}}
	}
	return s
}

// arraysNotNull makes every list of s an array that is never null: a
// result's empty list is [] (a nil Go slice sent as null is a bug the
// schema then shows).
func arraysNotNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") && slices.Contains(s.Types, "array") {
		s.Type, s.Types = "array", nil
	}
	arraysNotNull(s.Items)
	arraysNotNull(s.AdditionalProperties)
	for _, p := range s.Properties {
		arraysNotNull(p)
	}
	for _, a := range s.AnyOf {
		arraysNotNull(a)
	}
}

func mustSchema[T any]() *jsonschema.Schema { return derive(reflect.TypeFor[T]()) }

// requiredNotNull drops "null" from the types of s's required properties:
// a Go slice or pointer derives as nullable, but a required parameter must
// be given a value (the handler refuses null as missing).
func requiredNotNull(s *jsonschema.Schema) {
	for _, name := range s.Required {
		p := s.Properties[name]
		if p == nil || len(p.Types) == 0 {
			continue
		}
		types := slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" })
		if len(types) == 1 {
			p.Type, p.Types = types[0], nil
		} else {
			p.Types = types
		}
	}
}
