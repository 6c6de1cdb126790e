package mcpcoding_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace"
)

// binPath is the coding-tools-mcp binary built once for the package.
var binPath string

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "coding-tools-mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The commands' private homes go under the test's own state
	// directory, in-process servers and binaries alike.
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	// Git looks for a repository no higher than the temporary directory,
	// so a workspace made there is outside any repository even when the
	// temporary directory lies inside someone's work tree.
	os.Setenv("GIT_CEILING_DIRECTORIES", filepath.Clean(os.TempDir()))
	bins, err := testkit.Build("./cmd/coding-tools-mcp")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	binPath = bins[0]
	return testkit.Run(m)
}

const testVersion = "9.9.9-test"

// newWorkspace opens a fresh workspace directory.
func newWorkspace(t *testing.T) *workspace.Root {
	t.Helper()
	root, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.FS.Close() })
	return root
}

// newServer returns a server over a fresh workspace.
func newServer(t *testing.T, opts mcpcoding.Options) *mcpcoding.Server {
	t.Helper()
	if opts.Version == "" {
		opts.Version = testVersion
	}
	s := mcpcoding.New(newWorkspace(t), opts)
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// newHTTP serves a fresh server's HTTP handler; the URL is the /mcp
// endpoint.
func newHTTP(t *testing.T, opts mcpcoding.Options) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewServer(newServer(t, opts).HTTPHandler())
	t.Cleanup(srv.Close)
	return srv, srv.URL + "/mcp"
}

// reply is an HTTP response read whole.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// hdr is a request's headers; a value "" removes a default header.
type hdr map[string]string

// post sends body to url with Content-Type application/json unless hdr
// says otherwise.
func post(t *testing.T, url string, h hdr, body string) reply {
	t.Helper()
	return do(t, http.MethodPost, url, h, body)
}

func do(t *testing.T, method, url string, h hdr, body string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" || method == http.MethodPost {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, b}
}

// rawHTTP writes a raw request on a new connection and reads one
// response, within a deadline.
func rawHTTP(t *testing.T, addr, request string) reply {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the response to %q: %v", request, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, b}
}

// rpcErr is a decoded JSON-RPC error response.
type rpcErr struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

// message is a decoded JSON-RPC response.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcErr         `json:"error"`
	raw     map[string]json.RawMessage
}

func decode(t *testing.T, b []byte) message {
	t.Helper()
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("response %q is not a JSON-RPC object: %v", b, err)
	}
	if err := json.Unmarshal(b, &m.raw); err != nil {
		t.Fatal(err)
	}
	if m.JSONRPC != "2.0" {
		t.Fatalf("response %s: jsonrpc = %q", b, m.JSONRPC)
	}
	if _, has := m.raw["id"]; !has {
		t.Fatalf("response %s has no id member", b)
	}
	if (m.Error == nil) == (m.Result == nil) {
		t.Fatalf("response %s: want exactly one of result and error", b)
	}
	return m
}

// wantError asserts a JSON-RPC error with code and id (raw JSON, "null"
// for null), whose message contains msg.
func (m message) wantError(t *testing.T, code int, id, msg string) {
	t.Helper()
	if m.Error == nil {
		t.Fatalf("want error %d, got result %s", code, m.Result)
	}
	if m.Error.Code != code {
		t.Fatalf("error code = %d (%q), want %d", m.Error.Code, m.Error.Message, code)
	}
	if string(m.ID) != id {
		t.Fatalf("error id = %s, want %s", m.ID, id)
	}
	if !strings.Contains(m.Error.Message, msg) {
		t.Fatalf("error message %q does not contain %q", m.Error.Message, msg)
	}
}

func (m message) resultMap(t *testing.T) map[string]any {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("want a result, got error %+v", *m.Error)
	}
	var r map[string]any
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatalf("result %s is not an object: %v", m.Result, err)
	}
	return r
}

// client speaks to one logical session over one transport: send returns
// the raw response, or nil when none came (a notification).
type client interface {
	send(t *testing.T, raw string) []byte
}

// transports runs f over a fresh HTTP server and a fresh stdio connection.
func transports(t *testing.T, opts mcpcoding.Options, f func(t *testing.T, c client)) {
	t.Run("http", func(t *testing.T) {
		_, url := newHTTP(t, opts)
		f(t, &httpClient{url: url})
	})
	t.Run("stdio", func(t *testing.T) {
		f(t, newStdio(t, newServer(t, opts)))
	})
}

type httpClient struct{ url string }

func (c *httpClient) send(t *testing.T, raw string) []byte {
	t.Helper()
	r := post(t, c.url, nil, raw)
	switch r.status {
	case http.StatusAccepted:
		if len(r.body) != 0 {
			t.Fatalf("202 with a body: %q", r.body)
		}
		return nil
	case http.StatusOK:
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("Content-Type = %q", ct)
		}
		return r.body
	}
	t.Fatalf("POST %s: HTTP %d %s", raw, r.status, r.body)
	return nil
}

// stdioConn is ServeStdio over pipes.
type stdioConn struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
	seq   int
}

func newStdio(t *testing.T, s *mcpcoding.Server) *stdioConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &stdioConn{in: inW, lines: make(chan string, 1000), done: make(chan error, 1)}
	go func() {
		err := s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		c.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return after stdin closed")
		}
	})
	return c
}

func (c *stdioConn) write(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(c.in, s); err != nil {
		t.Fatal(err)
	}
}

func (c *stdioConn) line(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			t.Fatal("stdout closed")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no response line within 10s")
	}
	return ""
}

// send writes one line and a ping probe after it. Requests run
// concurrently, so the probe may be answered first: a message that calls
// for an answer waits for it; one that does not (a notification) must
// stay silent until the probe is answered and for a grace period after.
func (c *stdioConn) send(t *testing.T, raw string) []byte {
	t.Helper()
	if strings.Contains(raw, "\n") {
		raw = compact(t, raw)
	}
	c.write(t, raw+"\n")
	c.seq++
	probe := fmt.Sprintf("probe-%d", c.seq)
	c.write(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"ping"}`+"\n", probe))
	expect := expectsAnswer(raw)
	var got []byte
	probed := false
	for !probed || (expect && got == nil) {
		l := c.line(t)
		switch {
		case isProbe(l, probe) && !probed:
			probed = true
		case got == nil:
			got = []byte(l)
		default:
			t.Fatalf("two answers to one line: %s / %s", got, l)
		}
	}
	if got == nil {
		select {
		case l, ok := <-c.lines:
			if ok {
				got = []byte(l)
			}
		case <-time.After(25 * time.Millisecond):
		}
	}
	return got
}

// expectsAnswer reports whether a raw line calls for a response: anything
// but a notification object, or a batch of notification objects only.
func expectsAnswer(raw string) bool {
	isRequest := func(b []byte) bool {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return true
		}
		id, has := m["id"]
		return has && string(id) != "null"
	}
	var batch []json.RawMessage
	if json.Unmarshal([]byte(raw), &batch) == nil {
		if len(batch) == 0 {
			return true
		}
		for _, it := range batch {
			if isRequest(it) {
				return true
			}
		}
		return false
	}
	return isRequest([]byte(raw))
}

func isProbe(line, probe string) bool {
	var m struct {
		ID     string          `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	return json.Unmarshal([]byte(line), &m) == nil && m.ID == probe && string(m.Result) == "{}"
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// call sends a request with id 1 and decodes the answer.
func call(t *testing.T, c client, method string, params any) message {
	t.Helper()
	req := map[string]any{"jsonrpc": "2.0", "id": 1, "method": method}
	if params != nil {
		req["params"] = params
	}
	b, _ := json.Marshal(req)
	out := c.send(t, string(b))
	if out == nil {
		t.Fatalf("%s: no response", method)
	}
	return decode(t, out)
}

func initialize(t *testing.T, c client) {
	t.Helper()
	call(t, c, "initialize", map[string]any{"protocolVersion": mcpcoding.ProtocolVersion}).resultMap(t)
}

// toolCall calls a tool and returns the decoded response.
func toolCall(t *testing.T, c client, name string, args any) message {
	t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	return call(t, c, "tools/call", params)
}

// childEnv is the environment without any CODING_TOOLS_MCP_* setting
// nor the token settings the server shares with the others
// (SUDOCODE_TOKEN, SUDOCODE_TOKEN_FILE), plus extra.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CODING_TOOLS_MCP_") && !strings.HasPrefix(kv, "SUDOCODE_TOKEN") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}
