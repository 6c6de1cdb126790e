package mcpcoding

import (
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// schema is the JSON Schema a tool publishes for its input, derived from
// its input type (derive.go) in the profile's vocabulary and key order.
// Calls are validated against it by mcpx.ArgsSchema (the JSON Schema
// validator the SDK uses), through tool.checkArgs.
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

// checkArgs validates a call's arguments (a decoded JSON object) against
// the tool's input schema and returns them with the defaults of the
// optional ones left out filled in. An argument the tool takes given as
// null counts as absent. The error's message names the argument.
func (t tool) checkArgs(args map[string]any) (json.RawMessage, error) {
	for name, v := range args {
		if _, known := t.InputSchema.Properties[name]; known && v == nil {
			delete(args, name)
		}
	}
	raw, _ := json.Marshal(args) // decoded JSON: always encodable
	if err := t.args.Check(raw); err != nil {
		if rpc, ok := errors.AsType[*jsonrpc.Error](err); ok {
			return nil, errors.New(rpc.Message)
		}
		return nil, err
	}
	filled := false
	for _, name := range t.InputSchema.order {
		if p := t.InputSchema.Properties[name]; args[name] == nil && p.Default != nil && !p.implicit {
			args[name], filled = p.Default, true
		}
	}
	if filled {
		raw, _ = json.Marshal(args)
	}
	return raw, nil
}
