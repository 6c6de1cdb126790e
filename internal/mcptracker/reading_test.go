package mcptracker_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/mcptracker"
)

// TestLinksReadOneWay: the tools' descriptions, their parameters' and the
// server's instructions say the blocking links in plain words
// (link(from_id=A, to_id=B, type=blocks): A waits for B), and none says
// "A blocks B", which reads the other way round.
func TestLinksReadOneWay(t *testing.T) {
	f := connect(t, mcptracker.Options{})
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"instructions": f.cs.InitializeResult().Instructions}
	for _, tool := range res.Tools {
		schema, _ := json.Marshal(tool.InputSchema)
		texts[tool.Name] = tool.Description + "\n" + string(schema)
	}
	for _, name := range []string{"link", "instructions"} {
		if !strings.Contains(texts[name], "type=blocks) means A waits for B") {
			t.Errorf("%s does not say that link(from_id=A, to_id=B, type=blocks) means A waits for B:\n%s", name, texts[name])
		}
	}
	for name, text := range texts {
		for _, bad := range []string{"A blocks B", "what blocks it", "that something blocks"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s says %q, which reads backwards", name, bad)
			}
		}
	}
}
