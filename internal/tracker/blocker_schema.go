package tracker

import "github.com/google/jsonschema-go/jsonschema"

// JSONSchema is the schema of a Blocker's JSON, which MarshalJSON makes:
// via is null for a direct blocker.
func (Blocker) JSONSchema() *jsonschema.Schema {
	str := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"id":     str("The unfinished item's id"),
			"title":  str("Its title"),
			"status": str("Its status"),
			"type":   str("Its type"),
			"via":    {Types: []string{"null", "string"}, Description: "The ancestor whose blocker it is (inherited through parent-child), or null for a direct blocker"},
		},
		PropertyOrder:        []string{"id", "title", "status", "type", "via"},
		Required:             []string{"id", "title", "status", "type", "via"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}
