package goldentest

import (
	"encoding/json"
	"testing"
)

// NoBooleanSchemas fails t where schema holds a boolean (true or false)
// in place of a subschema — a property, the items of a list, a branch of
// anyOf/oneOf/allOf, a definition. JSON Schema allows it, but some
// clients (the MCP Inspector among them) refuse the whole tool list for
// it; Go's `any` fields infer to `true` unless they are described.
func NoBooleanSchemas(t testing.TB, name string, schema any) {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	walkSchema(t, name, v)
}

func walkSchema(t testing.TB, at string, v any) {
	t.Helper()
	if _, ok := v.(bool); ok {
		t.Errorf("%s: a boolean schema; describe the field (jsonschema tag) so that it is an object", at)
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, key := range []string{"properties", "$defs", "definitions", "patternProperties"} {
		if sub, ok := m[key].(map[string]any); ok {
			for k, s := range sub {
				walkSchema(t, at+"/"+key+"/"+k, s)
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if list, ok := m[key].([]any); ok {
			for _, s := range list {
				walkSchema(t, at+"/"+key, s)
			}
		}
	}
	for _, key := range []string{"items", "not", "if", "then", "else"} {
		if s, ok := m[key]; ok {
			walkSchema(t, at+"/"+key, s)
		}
	}
}
