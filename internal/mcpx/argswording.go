package mcpx

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// The words of ArgsSchema's errors: what a caller fixes, named as JSON
// decoding names it (unknown parameter 'x'; expected: …, missing required
// parameter 'x': …, invalid parameter 'x': expected string, got number).

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

// schemaMessage words a validator's error about args: the parameter it is
// about and its reason; for a value outside an enumeration, as the
// product's own checks word it: invalid <parameter> "<value>": must be one
// of <the values allowed>.
func (a *ArgsSchema) schemaMessage(err error, args map[string]any) string {
	msg := err.Error()
	reason := schemaScopes.ReplaceAllString(msg, "")
	m := schemaPath.FindStringSubmatch(msg)
	if m == nil {
		return "invalid arguments: " + reason
	}
	if p := a.schema.Properties[m[1]]; p != nil && strings.HasPrefix(reason, "enum: ") {
		value := args[m[1]]
		if p.Items != nil {
			p = p.Items
			value = outside(value, p.Enum)
		}
		var values []string
		for _, v := range p.Enum {
			if v != nil {
				values = append(values, fmt.Sprint(v))
			}
		}
		return fmt.Sprintf("invalid %s %q: must be one of %s", m[1], fmt.Sprint(value), strings.Join(values, ", "))
	}
	return fmt.Sprintf("invalid parameter '%s': %s", m[1], reason)
}

// outside is the first element of the list v that enum lacks.
func outside(v any, enum []any) any {
	list, _ := v.([]any)
	for _, e := range list {
		if !slices.Contains(enum, e) {
			return e
		}
	}
	return v
}
