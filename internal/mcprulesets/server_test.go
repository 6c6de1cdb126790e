package mcprulesets_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcprulesets"
	"github.com/sudocode/sudocode/internal/mcpx/schematest"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
	"github.com/sudocode/sudocode/internal/rulesets/valkeystore"
	"github.com/sudocode/sudocode/internal/valkeytest"
)

func TestMain(m *testing.M) { os.Exit(valkeytest.Main(m)) }

// stores are the two adapters every behaviour is checked against.
var stores = []struct {
	name string
	open func(t testing.TB) rulesets.Store
}{
	{"embedded", func(t testing.TB) rulesets.Store {
		s, err := sqlitestore.Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}},
	{"valkey", func(t testing.TB) rulesets.Store {
		s, err := valkeystore.Open(context.Background(), valkeystore.Config{Addr: valkeytest.Shared(t).Addr})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}},
}

// clock is the time the server stamps; tests set it to the specification's
// example times so texts compare exactly.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(s string) {
	t, err := time.Parse(time.DateTime, s)
	if err != nil {
		panic(err)
	}
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

type fixture struct {
	t     testing.TB
	cs    *mcp.ClientSession
	clock *clock
	//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
	logs    chan *mcp.LoggingMessageParams
	schemas *schematest.Checker // every result is checked against its tool's output schema
}

// connect serves a fresh server over in-memory transports and returns a
// client session on it.
func connect(t testing.TB, store rulesets.Store) *fixture {
	t.Helper()
	clk := &clock{t: time.Now()}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	server := mcprulesets.NewWithOptions(rulesets.Library{Store: store, Clock: clk.Now, Actor: "tester"}, mcprulesets.Options{Logger: logger})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
	logs := make(chan *mcp.LoggingMessageParams, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		//lint:ignore SA1019 the servers still offer MCP logging to clients of protocol versions before its deprecation (SEP-2577), and this checks it
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { logs <- r.Params },
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait(); store.Close() })
	return &fixture{t: t, cs: cs, clock: clk, logs: logs, schemas: schematest.New(t, cs)}
}

// call calls a tool and returns its text and isError; a protocol error
// fails the test.
func (f *fixture) call(name string, args map[string]any) (string, bool) {
	f.t.Helper()
	res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		f.t.Fatalf("%s: protocol error %v", name, err)
	}
	if len(res.Content) != 1 {
		f.t.Fatalf("%s: %d content items", name, len(res.Content))
	}
	f.schemas.Check(f.t, name, res)
	if res.IsError && res.StructuredContent != nil {
		f.t.Errorf("%s: a tool error with structured content: the specification's errors are their text alone", name)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// ok calls a tool that must succeed with exactly want.
func (f *fixture) ok(name string, args map[string]any, want string) {
	f.t.Helper()
	got, isErr := f.call(name, args)
	if isErr || got != want {
		f.t.Fatalf("%s(%v):\n got (isError=%v) %q\nwant %q", name, args, isErr, got, want)
	}
}

// fails calls a tool that must return a tool error with exactly want.
func (f *fixture) fails(name string, args map[string]any, want string) {
	f.t.Helper()
	got, isErr := f.call(name, args)
	if !isErr || got != want {
		f.t.Fatalf("%s(%v):\n got (isError=%v) %q\nwant tool error %q", name, args, isErr, got, want)
	}
}

// protocolError calls a tool that must fail with a JSON-RPC error.
func (f *fixture) protocolError(name string, args map[string]any, code int64, want string) {
	f.t.Helper()
	_, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	checkRPCError(f.t, err, code, want)
}

func checkRPCError(t testing.TB, err error, code int64, want string) {
	t.Helper()
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		t.Fatalf("want JSON-RPC error %d %q, got %v", code, want, err)
	}
	if rpc.Code != code || (want != "" && rpc.Message != want) {
		t.Fatalf("got JSON-RPC error %d %q, want %d %q", rpc.Code, rpc.Message, code, want)
	}
}

func (f *fixture) read(uri string) (*mcp.ReadResourceResult, error) {
	return f.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
}

func forEachStore(t *testing.T, fn func(t *testing.T, f *fixture)) {
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) { fn(t, connect(t, s.open(t))) })
	}
}
