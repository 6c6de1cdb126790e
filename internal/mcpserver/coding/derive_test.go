package coding

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/workspace"
)

// TestDefaultsSatisfyTheirSchema: every default a tool publishes passes
// its own argument's checks (a default outside its bounds or enum would
// be filled in and then refused, or never be refused at all).
func TestDefaultsSatisfyTheirSchema(t *testing.T) {
	root, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := New(root, Options{ViewImage: true})
	for _, tl := range s.tools {
		for name, p := range tl.InputSchema.Properties {
			if p.Default == nil {
				continue
			}
			b, _ := json.Marshal(p.Default)
			var v any
			json.Unmarshal(b, &v)
			if err := p.check(name, v); err != nil {
				t.Errorf("%s.%s: default %s: %v", tl.Name, name, b, err)
			}
		}
	}
}

type (
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
