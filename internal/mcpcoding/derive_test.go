package mcpcoding

import (
	"context"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sudocode/sudocode/internal/mcpx"
)

// TestDefaultsSatisfyTheirSchema: every default a tool publishes passes
// its own argument's schema (a default outside its bounds or enum would be
// filled in and then refused, or never be refused at all): the validator
// of each tool's arguments resolves its schema only then, and refuses a
// default out of bounds.
func TestDefaultsSatisfyTheirSchema(t *testing.T) {
	s := testServer(t, Options{ViewImage: true})
	for _, tl := range s.tools {
		if _, err := mcpx.SchemaOf(tl.Name, tl.InputSchema).Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
			t.Errorf("%s: %v", tl.Name, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a default out of its bounds was accepted")
		}
	}()
	define("bad", "A default out of bounds.", hints("Bad", true, false, true, false),
		func(context.Context, badDefaultBound) (struct{}, error) { return struct{}{}, nil })
}

type (
	badDefaultBound struct {
		N int `json:"n,omitempty" schema:"default=20,max=10"`
	}
	badBound struct {
		N int `json:"n" schema:"max=ten"`
	}
	badKey struct {
		N int `json:"n" schema:"maximum=10"`
	}
	badDefault struct {
		M map[string]string `json:"m" schema:"default=x"`
	}
)

// TestSchemaTagErrors: a schema tag the derivation cannot read stops the
// server from being built, naming the field.
func TestSchemaTagErrors(t *testing.T) {
	for _, f := range []func(){
		func() { inputSchema[badBound]() },
		func() { inputSchema[badKey]() },
		func() { inputSchema[badDefault]() },
	} {
		func() {
			defer func() {
				p, _ := recover().(string)
				if !strings.Contains(p, ".N:") && !strings.Contains(p, ".M:") {
					t.Errorf("panic %q, want one naming the field", p)
				}
			}()
			f()
		}()
	}
}
