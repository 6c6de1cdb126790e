package bench_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
	"github.com/sudocode/sudocode/internal/testkit"
)

// seedEmbedded writes n rulesets into an embedded store in dir.
func seedEmbedded(b *testing.B, dir string, n int) {
	ctx := context.Background()
	s, err := sqlitestore.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	md := "# Rules\n\n- Keep functions small.\n- Name things for what they hold.\n"
	for i := range n {
		name, desc := fmt.Sprintf("ruleset_%05d", i), "Rules"
		if _, err := s.Upsert(ctx, rulesets.Patch{Name: name, Description: &desc, Markdown: &md}, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}

// rawClient speaks newline-delimited JSON-RPC to a server's stdio, with
// nothing between the benchmark and the pipe.
type rawClient struct {
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func (c *rawClient) roundTrip(b *testing.B, method, params string) []byte {
	c.id++
	if params == "" {
		params = "{}"
	}
	fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", c.id, method, params)
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		b.Fatal(err)
	}
	if bytes.Contains(line, []byte(`"error"`)) || bytes.Contains(line, []byte(`"isError":true`)) {
		b.Fatalf("%s failed: %s", method, line)
	}
	return line
}

// startStdio starts an MCP server process and initialises a session with
// it; the process ends when the benchmark does.
func startStdio(b *testing.B, cmd *exec.Cmd) *rawClient {
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); cmd.Wait() })
	c := &rawClient{in: in, out: bufio.NewReaderSize(out, 1<<20)}
	c.roundTrip(b, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

// BenchmarkStdio measures round trips to the built binary over stdio, as a
// client such as Claude Code talks to it, with 10,000 rulesets stored:
// get_ruleset, and ping as the peer (the transport's floor).
func BenchmarkStdio(b *testing.B) {
	bin := testkit.Binary(b, "./cmd/mcp-ruleset-server")
	dir := b.TempDir()
	seedEmbedded(b, dir, 10_000)
	cmd := exec.Command(bin, "--store", dir)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+b.TempDir())
	c := startStdio(b, cmd)
	b.Run("get_ruleset", func(b *testing.B) {
		for b.Loop() {
			c.roundTrip(b, "tools/call", `{"name":"get_ruleset","arguments":{"name":"ruleset_04242"}}`)
		}
	})
	b.Run("peer_ping", func(b *testing.B) {
		for b.Loop() {
			c.roundTrip(b, "ping", "")
		}
	})
}
