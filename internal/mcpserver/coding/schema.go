package coding

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// schema is the small JSON Schema vocabulary the profile's input schemas
// use, derived from each tool's input type (derive.go). Validation is done
// here, not by a general validator, so that every message names the
// argument the way the profile wants.
type schema struct {
	Type        string             `json:"type"`
	Description string             `json:"description,omitempty"`
	Default     any                `json:"default,omitempty"`
	MinLength   *int               `json:"minLength,omitempty"`
	Minimum     *int               `json:"minimum,omitempty"`
	Maximum     *int               `json:"maximum,omitempty"`
	Enum        []string           `json:"enum,omitempty"`
	Items       *schema            `json:"items,omitempty"`
	Properties  map[string]*schema `json:"properties,omitempty"`
	Required    []string           `json:"required,omitempty"`
	// AdditionalProperties is false for tool inputs, or the schema of the
	// values of a map (env).
	AdditionalProperties any `json:"additionalProperties,omitempty"`
	order                []string
	// implicit: Default is published but not filled in, because the tool
	// derives it from other arguments (list_files' patterns falls back to
	// glob before **/*).
	implicit bool
}

// MarshalJSON always writes required (possibly empty) for objects.
func (s *schema) MarshalJSON() ([]byte, error) {
	type plain schema
	if s.Type == "object" && s.Properties != nil {
		return json.Marshal(struct {
			*plain
			Required []string `json:"required"`
		}{(*plain)(s), s.Required})
	}
	return json.Marshal((*plain)(s))
}

// validate checks args (a decoded JSON object) against an object schema
// and fills in defaults. Its error names the argument.
func (s *schema) validate(args map[string]any) error {
	for name := range args {
		if _, ok := s.Properties[name]; !ok {
			return fmt.Errorf("unknown argument %q (this tool takes %s)", name, strings.Join(s.order, ", "))
		}
	}
	for _, name := range s.Required {
		if v, ok := args[name]; !ok || v == nil {
			return fmt.Errorf("missing required argument %q", name)
		}
	}
	for _, name := range s.order {
		p := s.Properties[name]
		v, ok := args[name]
		if !ok || v == nil {
			if p.Default != nil && !p.implicit {
				args[name] = p.Default
			} else {
				delete(args, name)
			}
			continue
		}
		if err := p.check(name, v); err != nil {
			return err
		}
	}
	return nil
}

func (p *schema) check(name string, v any) error {
	switch p.Type {
	case "string":
		sv, ok := v.(string)
		if !ok {
			return fmt.Errorf("argument %q must be a string", name)
		}
		if p.MinLength != nil && len([]rune(sv)) < *p.MinLength {
			return fmt.Errorf("argument %q must not be empty", name)
		}
		if p.Enum != nil && !slices.Contains(p.Enum, sv) {
			return fmt.Errorf("argument %q must be one of %s", name, strings.Join(p.Enum, ", "))
		}
	case "integer":
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || math.IsInf(f, 0) {
			return fmt.Errorf("argument %q must be an integer", name)
		}
		if p.Minimum != nil && f < float64(*p.Minimum) {
			return fmt.Errorf("argument %q must be at least %d", name, *p.Minimum)
		}
		if p.Maximum != nil && f > float64(*p.Maximum) {
			return fmt.Errorf("argument %q must be at most %d", name, *p.Maximum)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("argument %q must be a boolean", name)
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("argument %q must be an array", name)
		}
		for i, it := range items {
			if err := p.Items.check(fmt.Sprintf("%s[%d]", name, i), it); err != nil {
				return err
			}
		}
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("argument %q must be an object", name)
		}
		if vs, ok := p.AdditionalProperties.(*schema); ok {
			for k, x := range m {
				if err := vs.check(name+"."+k, x); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
