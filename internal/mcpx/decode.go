package mcpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// DecodeArgs decodes tool arguments into v, refusing what v does not
// declare. Its errors are JSON-RPC invalid-params errors; an unknown
// parameter's names the parameters v declares.
func DecodeArgs(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return InvalidParams("arguments must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, err = dec.Token(); err != io.EOF {
			return InvalidParams("arguments must be a single JSON object")
		}
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		return InvalidParams(fmt.Sprintf("invalid parameter '%s': expected %s, got %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return InvalidParams(unknownParam(raw, field, reflect.TypeOf(v)))
	default:
		return InvalidParams("malformed arguments: " + err.Error())
	}
}

// unknownParam words an unknown parameter. One given at the top level is
// followed by the parameters the tool takes, read from its input type (a
// nested one, in an item of a list, by the item's own fields is beyond
// what the decoder says, so it is named alone).
func unknownParam(raw json.RawMessage, field string, t reflect.Type) string {
	msg := fmt.Sprintf("unknown parameter '%s'", field)
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return msg
	}
	if _, ok := top[field]; !ok {
		return msg
	}
	names := paramNames(t)
	if len(names) == 0 {
		return msg + ": this tool takes no parameters"
	}
	return msg + "; expected: " + strings.Join(names, ", ")
}

// paramNames are the JSON names of t's fields, in declaration order.
func paramNames(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice", "array":
		return "array"
	case "struct", "map":
		return "object"
	case "bool":
		return "boolean"
	case "string":
		return "string"
	default:
		return "number"
	}
}
