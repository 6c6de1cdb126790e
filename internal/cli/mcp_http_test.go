package cli_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/testkit"
)

// httpServer is a server process on Streamable HTTP.
type httpServer struct {
	cmd    *exec.Cmd
	url    string
	stderr *testkit.LockedBuffer
	exited chan struct{} // closed when the process has exited
}

var logURL = regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)(\s|$)`)

// startHTTP starts bin, which must log the URL it serves within 20s.
func startHTTP(t *testing.T, env []string, bin string, args ...string) *httpServer {
	t.Helper()
	s := &httpServer{cmd: exec.Command(bin, args...), stderr: &testkit.LockedBuffer{}, exited: make(chan struct{})}
	s.cmd.Env = env
	pipe, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			s.stderr.Write([]byte(sc.Text() + "\n"))
			if m := logURL.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, pipe)
		s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() { testkit.Stop(t, s.cmd.Process, s.exited, 30*time.Second) })
	select {
	case s.url = <-urls:
		rememberToken(strings.TrimPrefix(strings.TrimSuffix(s.url, "/mcp"), "http://"), env)
	case <-s.exited:
		t.Fatalf("%s exited before serving: %v\nstderr:\n%s", filepath.Base(bin), s.cmd.ProcessState, s.stderr)
	case <-time.After(testkit.Scale(20 * time.Second)):
		t.Fatalf("%s logged no url=http://127.0.0.1:PORT/mcp within %v\nstderr:\n%s", filepath.Base(bin), testkit.Scale(20*time.Second), s.stderr)
	}
	return s
}

// drainCutShort is what a server logs when its shutdown waited out its
// drain for a request still running, and closed it.
const drainCutShort = "when the shutdown's wait ended"

// terminate sends SIGTERM and waits for a clean exit that did not wait
// out the drain: a client's open stream must not hold the shutdown.
func (s *httpServer) terminate(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.exited:
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatalf("waited %v for the server to exit after SIGTERM\nstderr:\n%s", testkit.Scale(10*time.Second), s.stderr)
	}
	if strings.Contains(s.stderr.String(), drainCutShort) {
		t.Errorf("the shutdown waited for a request to drain, then cut it\nstderr:\n%s", s.stderr)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code after SIGTERM = %d, want 0\nstderr:\n%s", code, s.stderr)
	}
}

// watchingTransport adds headers to every request and counts the
// standalone SSE streams (GETs) the server has accepted.
type watchingTransport struct {
	header  map[string]string
	streams atomic.Int32
	base    http.RoundTripper
}

func (w *watchingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range w.header {
		r.Header.Set(k, v)
	}
	resp, err := servedToken{w.base}.RoundTrip(r)
	if err == nil && r.Method == http.MethodGet && resp.StatusCode == http.StatusOK {
		w.streams.Add(1)
	}
	return resp, err
}

// connectHTTP connects the SDK's Streamable HTTP client as a client of
// 2025-11-25 (one that holds a session) and waits until its standalone SSE
// stream is open.
//
// The client opens at most two connections: a connection its pool dialled
// but never sent a request on makes net/http's Shutdown wait 5s for it,
// which would blur what the SIGTERM test measures.
func connectHTTP(t *testing.T, url string, header map[string]string) *mcp.ClientSession {
	t.Helper()
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxConnsPerHost = 2
	w := &watchingTransport{header: header, base: base}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: w}, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { session.Close() })
	testkit.WaitFor(t, 10*time.Second, "the client's standalone SSE stream", func() bool { return w.streams.Load() > 0 })
	return session
}

func TestHTTPServer(t *testing.T) {
	for _, tc := range []struct {
		name string
		bin  func() string
		args []string
	}{
		{"sudocode mcp rulesets", func() string { return sudocodeBin }, []string{"mcp", "rulesets"}},
		{"mcp-ruleset-server", func() string { return rulesetServerBin }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startHTTP(t, childEnv(t), tc.bin(), append(tc.args, "--http", "127.0.0.1:0", "--store", t.TempDir())...)
			s := connectHTTP(t, srv.url, nil)
			checkServer(t, s)
			wantMasked(t, s, "list_rulesets", map[string]any{}, strings.TrimSpace(`
Found 1 ruleset(s):

- **python_style_guide**: Python coding style guidelines for team projects
  Tags: [python style pep8]
  Created: TIME, Modified: TIME
`)+"\n\n")
		})
	}
}

func TestHTTPServerStopsOnSIGTERM(t *testing.T) {
	t.Parallel()
	srv := startHTTP(t, childEnv(t), sudocodeBin, "mcp", "rulesets", "--http", "127.0.0.1:0", "--store", t.TempDir())
	s := connectHTTP(t, srv.url, nil)
	wantText(t, s, "upsert_ruleset", pyArgs, "Successfully upserted ruleset 'python_style_guide'")
	// The client is still connected, its SSE stream open: the shutdown must
	// not wait for it.
	srv.terminate(t)
}

func TestHTTPServerToken(t *testing.T) {
	t.Parallel()
	// The token comes from the environment here; --token is the flag.
	env := childEnv(t, "SUDOCODE_TOKEN=s3cret")
	srv := startHTTP(t, env, sudocodeBin, "mcp", "rulesets", "--http", "127.0.0.1:0", "--store", t.TempDir())

	for _, auth := range []string{"", "Bearer wrong"} {
		req, _ := http.NewRequest(http.MethodPost, srv.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: status %d, WWW-Authenticate %q; want 401 with a challenge",
				auth, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}

	s := connectHTTP(t, srv.url, map[string]string{"Authorization": "Bearer s3cret"})
	wantText(t, s, "list_rulesets", map[string]any{}, "No rulesets found")
	srv.terminate(t)
}

func TestHTTPRefusesNonLoopbackWithoutToken(t *testing.T) {
	t.Parallel()
	for _, run := range [][]string{
		{sudocodeBin, "mcp", "rulesets", "--http", "0.0.0.0:0", "--store", t.TempDir()},
		{sudocodeBin, "mcp", "rulesets", "--http", ":0", "--store", t.TempDir()},
		{rulesetServerBin, "--http", "0.0.0.0:0", "--store", t.TempDir()},
	} {
		r := runCmd(t, childEnv(t), "", run[0], run[1:]...)
		if r.code == 0 {
			t.Errorf("%s %v exited 0, want a refusal", filepath.Base(run[0]), run[1:])
		}
		if !strings.Contains(r.stderr, "--token") {
			t.Errorf("%s %v: stderr %q does not mention --token", filepath.Base(run[0]), run[1:], r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("%s %v wrote to stdout: %q", filepath.Base(run[0]), run[1:], r.stdout)
		}
	}
}
