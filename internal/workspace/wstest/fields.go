// Package wstest holds what the tests of the workspace packages share.
// Nothing outside tests imports it.
package wstest

import (
	"reflect"
	"strings"
	"testing"
)

// Fields is a result struct as a map from its JSON field names to its Go
// values (embedded structs flattened, pointers followed, a nil pointer as
// nil), so that tests can pick fields by the names a client sees while
// comparing Go values. Fields tagged "-" are left out, and so are empty
// omitempty fields, as in the JSON.
func Fields(v any) map[string]any {
	out := map[string]any{}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	collect(rv, out)
	return out
}

func collect(rv reflect.Value, out map[string]any) {
	for i := range rv.NumField() {
		f := rv.Type().Field(i)
		fv := rv.Field(i)
		if f.Anonymous {
			for fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					break
				}
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.Struct {
				collect(fv, out)
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				out[name] = nil
				continue
			}
			fv = fv.Elem()
		}
		out[name] = fv.Interface()
	}
}

// Want compares selected fields of a result (Fields) with want.
func Want(t testing.TB, res map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		got, ok := res[k]
		if !ok {
			t.Errorf("field %s missing", k)
			continue
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("%s = %#v, want %#v", k, got, v)
		}
	}
}
