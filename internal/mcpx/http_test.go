package mcpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/testkit"
)

func TestCheckAddrLoopbackNeedsNoToken(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.1:8080", "127.1.2.3:80", "[::1]:0", "localhost:0", "LOCALHOST:9000"} {
		if err := (Transport{}).CheckAddr(addr); err != nil {
			t.Errorf("CheckAddr(%q) without a token = %v, want nil", addr, err)
		}
	}
}

func TestCheckAddrRefusesNonLoopbackWithoutToken(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8080", ":8080", "192.168.1.5:80", "[::]:8080", "example.com:80", "10.0.0.1:0"} {
		err := (Transport{}).CheckAddr(addr)
		if err == nil {
			t.Errorf("CheckAddr(%q) without a token = nil, want a refusal", addr)
			continue
		}
		if !strings.Contains(err.Error(), "--token") {
			t.Errorf("CheckAddr(%q) without a token = %q, want a message that mentions --token", addr, err)
		}
		if err := (Transport{Token: "s3cret"}).CheckAddr(addr); err != nil {
			t.Errorf("CheckAddr(%q) with a token = %v, want nil", addr, err)
		}
	}
}

func TestCheckAddrRefusesMalformedAddress(t *testing.T) {
	for _, addr := range []string{"", "127.0.0.1", "localhost", "8080", "http://127.0.0.1:80", "[::1", "1.2.3.4:5:6"} {
		for _, token := range []string{"", "s3cret"} {
			err := (Transport{Token: token}).CheckAddr(addr)
			if err == nil {
				t.Errorf("CheckAddr(%q), token %q = nil, want an error", addr, token)
				continue
			}
			if !strings.Contains(err.Error(), "invalid listen address") {
				t.Errorf("CheckAddr(%q), token %q = %q, want an invalid-address error", addr, token, err)
			}
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.255.0.9": true, "::1": true, "[::1]": true, "localhost": true, "LocalHost": true,
		"": false, "0.0.0.0": false, "::": false, "192.168.1.5": false, "localhost.evil.example": false, "evil.example": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// testServer is a real MCP server with one tool whose arguments are decoded
// by NewTool.
func testServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpx test", Version: "0.0.1"}, nil)
	type echoIn struct {
		Text string `json:"text"`
	}
	AddTools(s, NewTool(Faults, &mcp.Tool{Name: "echo", Description: "Echo the text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (echoOut, error) {
			return echoOut{in.Text}, nil
		}))
	return s
}

// echoOut is the echo tool's result, whose text is "echo: " and the text.
type echoOut struct {
	Echo string `json:"echo"`
}

func (e echoOut) ToolText() string { return "echo: " + e.Echo }

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startHandler serves Handler over a real loopback listener.
func startHandler(t *testing.T, tr Transport) string {
	t.Helper()
	ts := httptest.NewServer(Handler(testServer(), tr, quietLogger()))
	t.Cleanup(ts.Close)
	return ts.URL + Path
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// post sends one JSON-RPC message as a streamable HTTP client would.
func post(t *testing.T, url string, body io.Reader, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestHandlerRefusesForeignOrigin(t *testing.T) {
	url := startHandler(t, Transport{AllowedOrigins: []string{"https://app.example"}})
	for _, origin := range []string{"http://evil.example", "https://localhost.evil.example", "null", "file://localhost", "https://app.example:8443",
		"http://127.0.0.2", "http://[::ffff:127.0.0.1]", "http://LOCALHOST"} {
		resp := post(t, url, strings.NewReader(initializeBody), map[string]string{"Origin": origin})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("Origin %s: status %d, want 403", origin, resp.StatusCode)
		}
	}
}

func TestHandlerAcceptsLoopbackAndAllowedOrigins(t *testing.T) {
	url := startHandler(t, Transport{AllowedOrigins: []string{"https://app.example"}})
	for _, origin := range []string{"", "http://localhost:1234", "http://127.0.0.1:5173", "https://[::1]:8443", "https://app.example"} {
		resp := post(t, url, strings.NewReader(initializeBody), map[string]string{"Origin": origin})
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("Origin %q: status %d (%s), want 200", origin, resp.StatusCode, body)
			continue
		}
		if !bytes.Contains(body, []byte(`"serverInfo"`)) {
			t.Errorf("Origin %q: the initialize response has no serverInfo: %s", origin, body)
		}
	}
}

func TestHandlerOriginIsCheckedBeforeToken(t *testing.T) {
	url := startHandler(t, Transport{Token: "s3cret"})
	resp := post(t, url, strings.NewReader(initializeBody), map[string]string{
		"Origin": "http://evil.example", "Authorization": "Bearer s3cret",
	})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("status %d, want 403 for a foreign origin even with the right token", resp.StatusCode)
	}
}

func TestHandlerBearerToken(t *testing.T) {
	url := startHandler(t, Transport{Token: "s3cret"})
	for name, auth := range map[string]string{
		"missing":       "",
		"wrong":         "Bearer wrong",
		"prefix":        "Bearer s3cre",
		"longer":        "Bearer s3cret2",
		"no scheme":     "s3cret",
		"other scheme":  "Basic s3cret",
		"lowercase tag": "bearer s3cret",
	} {
		resp := post(t, url, strings.NewReader(initializeBody), map[string]string{"Authorization": auth})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s Authorization: status %d, want 401", name, resp.StatusCode)
		}
		if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
			t.Errorf("%s Authorization: WWW-Authenticate = %q, want a Bearer challenge", name, got)
		}
	}

	// The right token lets a real client in.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpx-test", Version: "0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: headerTransport{"Authorization": "Bearer s3cret"}},
	}, nil)
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "echo" {
		t.Fatalf("tools/list = %+v, want the echo tool", tools.Tools)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "echo: hi" || res.IsError {
		t.Errorf("tools/call = %q (isError %v), want \"echo: hi\"", got, res.IsError)
	}

	// Strict decoding reaches the client as a -32602 protocol error.
	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": 7}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams ||
		werr.Message != "invalid parameter 'text': expected string, got number" {
		t.Errorf("a mistyped argument: err = %v, want -32602 \"invalid parameter 'text': expected string, got number\"", err)
	}
	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"txt": "hi"}})
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || werr.Message != "unknown parameter 'txt'; expected: text" {
		t.Errorf("an unknown argument: err = %v, want -32602 \"unknown parameter 'txt'; expected: text\"", err)
	}

	// Without the token the same client cannot connect.
	_, err = mcp.NewClient(&mcp.Implementation{Name: "mcpx-test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err == nil {
		t.Error("a client without the token connected")
	}
}

// pooledClient is an HTTP client that opens at most n connections.
//
// net/http's Server.Shutdown waits up to 5s for a connection that has not
// sent a request yet, which a client's pool leaves when it dials for a request
// that another connection then serves; a test of shutdown time avoids those.
func pooledClient(n int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxConnsPerHost = n
	return &http.Client{Transport: tr}
}

// headerTransport sets fixed headers on every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestHandlerBodyLimit(t *testing.T) {
	t.Parallel()
	const limit = 1024
	url := startHandler(t, Transport{MaxBodyBytes: limit})
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2*limit) + `"}}`

	// Declared length over the cap.
	resp := post(t, url, strings.NewReader(big), nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("Content-Length over the cap: status %d, want 413", resp.StatusCode)
	}
	// No declared length (chunked): the reader is capped as it goes.
	resp = post(t, url, io.MultiReader(strings.NewReader(big)), nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked body over the cap: status %d, want 413", resp.StatusCode)
	}
	// A body under the cap is served.
	resp = post(t, url, strings.NewReader(initializeBody), nil)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("small body: status %d, want 200", resp.StatusCode)
	}
}

func TestGuardDefaultBodyLimit(t *testing.T) {
	t.Parallel()
	reached := false
	h := Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = true
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		w.Write([]byte(strings.Repeat("n", int(n%10))))
	}), Transport{})
	ts := httptest.NewServer(h)
	defer ts.Close()

	resp := post(t, ts.URL, bytes.NewReader(make([]byte, DefaultMaxBodyBytes+1)), nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || reached {
		t.Errorf("a body of DefaultMaxBodyBytes+1: status %d (handler reached %v), want 413 before the handler", resp.StatusCode, reached)
	}
	resp = post(t, ts.URL, bytes.NewReader(make([]byte, DefaultMaxBodyBytes)), nil)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a body of DefaultMaxBodyBytes: status %d, want 200", resp.StatusCode)
	}
}

func TestHandlerKeepsDNSRebindingProtection(t *testing.T) {
	url := startHandler(t, Transport{})
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("Host evil.example on a loopback listener: status %d, want 403", resp.StatusCode)
	}
}

func TestServeHTTPStopsWhenContextEnds(t *testing.T) {
	ln, err := Listen(Transport{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ServeHTTP(ctx, ln, Handler(testServer(), Transport{}, quietLogger()), 0, quietLogger())
	}()

	url := "http://" + ln.Addr().String() + Path
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpx-test", Version: "0"}, nil)
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	// One connection: a spare one the client's pool dialled and never used
	// would be a new connection, which net/http's Shutdown waits up to 5s for.
	session, err := client.Connect(cctx, &mcp.StreamableClientTransport{
		Endpoint: url, DisableStandaloneSSE: true, HTTPClient: pooledClient(1),
	}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, err := session.ListTools(cctx, nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	session.Close()

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeHTTP returned %v after its context ended, want nil", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("ServeHTTP did not return within 8s of its context ending")
	}
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Error("the listener still accepts connections after ServeHTTP returned")
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after ServeHTTP returned: %v, want net.ErrClosed", err)
	}
}

func TestServeHTTPStopsWithAnOpenSession(t *testing.T) {
	ln, err := Listen(Transport{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	var openGETs atomic.Int32
	h := Handler(testServer(), Transport{}, quietLogger())
	counting := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			openGETs.Add(1)
			defer openGETs.Add(-1)
		}
		h.ServeHTTP(w, r)
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var logs lockedBuffer
	go func() { done <- ServeHTTP(ctx, ln, counting, 0, slog.New(slog.NewTextHandler(&logs, nil))) }()

	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "mcpx-test", Version: "0"}, nil).
		Connect(cctx, &mcp.StreamableClientTransport{
			Endpoint: "http://" + ln.Addr().String() + Path, MaxRetries: -1, HTTPClient: pooledClient(2),
		}, &mcp.ClientSessionOptions{ProtocolVersion: handshakeRevision})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	// Wait for the client's standalone SSE stream (a GET that never ends).
	testkit.WaitFor(t, 5*time.Second, "the client's standalone SSE stream", func() bool { return openGETs.Load() > 0 })
	// With the stream holding one connection, this call uses the other:
	// no connection is left that never carried a request.
	if _, err := session.ListTools(cctx, nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}

	cancel() // the client's standalone SSE stream is still open
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeHTTP returned %v, want nil", err)
		}
		// Had the stream not been ended, the drain would have waited out
		// its timeout on it and closed its connection, saying so.
		if strings.Contains(logs.String(), drainCutShort) {
			t.Errorf("the shutdown waited for the client's SSE stream instead of ending it:\n%s", logs.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeHTTP did not return within 10s of its context ending")
	}
}

func TestServeHTTPReturnsListenerError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	err = ServeHTTP(context.Background(), ln, http.NotFoundHandler(), 0, quietLogger())
	if err == nil {
		t.Error("ServeHTTP on a closed listener returned nil")
	}
}

func TestListen(t *testing.T) {
	if _, err := Listen(Transport{HTTPAddr: "0.0.0.0:0"}); err == nil || !strings.Contains(err.Error(), "--token") {
		t.Errorf("Listen(0.0.0.0:0) without a token = %v, want a refusal that mentions --token", err)
	}
	ln, err := Listen(Transport{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Listen(Transport{HTTPAddr: ln.Addr().String()})
	if err == nil || !strings.Contains(err.Error(), "cannot listen on "+ln.Addr().String()) {
		t.Errorf("Listen on a taken port = %v, want \"cannot listen on …\"", err)
	}
}

func TestServeOverHTTPLogsURLAndStops(t *testing.T) {
	var logs testkit.LockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, testServer(), Transport{HTTPAddr: "127.0.0.1:0"}, logger) }()

	var url string
	testkit.Eventually(5*time.Second, func() bool {
		for _, f := range strings.Fields(logs.String()) {
			if u, ok := strings.CutPrefix(f, "url="); ok {
				url = u
			}
		}
		return url != ""
	})
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, Path) {
		cancel()
		t.Fatalf("no url=http://127.0.0.1:PORT/mcp in the log: %q", logs.String())
	}
	resp := post(t, url, strings.NewReader(initializeBody), nil)
	var msg struct {
		Result struct {
			ServerInfo mcp.Implementation `json:"serverInfo"`
		} `json:"result"`
	}
	body, _ := io.ReadAll(resp.Body)
	if i := bytes.IndexByte(body, '{'); i >= 0 { // JSON or one SSE event
		json.NewDecoder(bytes.NewReader(body[i:])).Decode(&msg)
	}
	if msg.Result.ServerInfo.Name != "mcpx test" {
		t.Errorf("initialize over Serve: %s", body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve returned %v, want nil", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}

func TestServeRefusesNonLoopbackWithoutToken(t *testing.T) {
	err := Serve(context.Background(), testServer(), Transport{HTTPAddr: "0.0.0.0:0"}, quietLogger())
	if err == nil || !strings.Contains(err.Error(), "--token") {
		t.Errorf("Serve on 0.0.0.0:0 without a token = %v, want a refusal that mentions --token", err)
	}
}

func TestSDKLoggerFloor(t *testing.T) {
	for _, tc := range []struct {
		level string
		want  []string
	}{
		{"info", []string{"warn-msg", "error-msg"}},
		{"debug", []string{"debug-msg", "info-msg", "warn-msg", "error-msg"}},
		{"error", []string{"error-msg"}},
		{"bogus", []string{"warn-msg", "error-msg"}}, // an unknown level is info
	} {
		var buf testkit.LockedBuffer
		l := SDKLogger(NewLogger(&buf, tc.level)).With("k", "v").WithGroup("g")
		l.Debug("debug-msg")
		l.Info("info-msg")
		l.Warn("warn-msg")
		l.Error("error-msg")
		var got []string
		for _, m := range []string{"debug-msg", "info-msg", "warn-msg", "error-msg"} {
			if strings.Contains(buf.String(), "msg="+m) {
				got = append(got, m)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("level %s: logged %v, want %v", tc.level, got, tc.want)
		}
	}
}

// lockedBuffer is a log's output that the server writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
