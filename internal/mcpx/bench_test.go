package mcpx

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchArgs are typical tool arguments, one of them a secret to redact.
var benchArgs = json.RawMessage(`{"path":"internal/mcpx/http.go","offset":120,"limit":40,"password":"hunter2","tags":["a","b"]}`)

// benchControls is the full set: a token file of 20 clients, an audit log
// file, per-client and per-tool rate limits that never refuse, metrics.
func benchControls(b *testing.B) (Transport, *http.Request) {
	b.Helper()
	var lines strings.Builder
	for i := range 20 {
		fmt.Fprintf(&lines, "client%d token-%02d-0123456789abcdef0123456789\n", i, i)
	}
	path := filepath.Join(b.TempDir(), "tokens")
	writeTokenFileB(b, path, lines.String())
	a, err := NewAuth("", path, nil)
	if err != nil {
		b.Fatal(err)
	}
	audit, err := OpenAuditLog(filepath.Join(b.TempDir(), "audit.log"), 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { audit.Close() })
	lots, _ := ParseRate("1000000000/s")
	t := Transport{Name: "bench", Auth: a, Calls: &Calls{
		Audit: audit, Metrics: NewMetrics(), Limits: NewLimiter(lots, map[string]Rate{"noop": lots}),
	}}
	r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	r.Header.Set("Authorization", "Bearer token-13-0123456789abcdef0123456789")
	return t, r
}

func writeTokenFileB(b *testing.B, path, content string) {
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkControlsOverhead is what auth + audit + rate limiting + metrics
// add to one tool call, in process: the bearer check of the HTTP request
// (Auth.Authenticate) and the middleware every tools/call goes through,
// around a tool that does nothing. Target: under 50 µs.
func BenchmarkControlsOverhead(b *testing.B) {
	t, r := benchControls(b)
	noop := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	h := t.middleware()(noop)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		caller, ok := t.Auth.Authenticate(r)
		if !ok {
			b.Fatal("token refused")
		}
		req := &mcp.CallToolRequest{
			Params: &mcp.CallToolParamsRaw{Name: "noop", Arguments: benchArgs},
			Extra:  &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: caller}},
		}
		if _, err := h(ctx, "tools/call", req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolCall is a no-op tool call by a real client over the SDK's
// in-memory transport, bare and with the controls installed: the
// difference is their cost seen end to end.
func BenchmarkToolCall(b *testing.B) {
	for _, withControls := range []bool{false, true} {
		name := "bare"
		if withControls {
			name = "controls"
		}
		b.Run(name, func(b *testing.B) {
			s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
			s.AddTool(&mcp.Tool{Name: "noop", InputSchema: &jsonschema.Schema{Type: "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return Text("ok"), nil })
			t, r := benchControls(b)
			if withControls {
				t.Caller = "local-user"
				Install(s, t)
			}
			ct, st := mcp.NewInMemoryTransports()
			ctx := context.Background()
			ss, err := s.Connect(ctx, st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "noop", Arguments: benchArgs}
			b.ReportAllocs()
			for b.Loop() {
				if withControls {
					if _, ok := t.Auth.Authenticate(r); !ok {
						b.Fatal("token refused")
					}
				}
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
