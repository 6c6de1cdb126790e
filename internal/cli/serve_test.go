package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/testkit"
)

// serveRepo is the repository a served test works in: one commit of
// README.md.
func serveRepo(t *testing.T) string {
	t.Helper()
	return testkit.RepoOf(t, map[string]string{"README.md": "# served\n"})
}

// serveProc is a running `sudocode serve`.
type serveProc struct {
	cmd    *exec.Cmd
	stdout *testkit.LockedBuffer // what it printed after its first output
	stderr *testkit.LockedBuffer
	exited chan struct{}
}

// startServe starts `sudocode serve args…` and returns its first stdout
// output: the JSON document with --json, else the first line. The token
// the server keeps in the state directory of env, if it has one, is sent
// by the connect helpers (servedToken).
func startServe(t *testing.T, env []string, asJSON bool, args ...string) (*serveProc, string) {
	t.Helper()
	p := &serveProc{cmd: exec.Command(sudocodeBin, append([]string{"serve"}, args...)...), stdout: &testkit.LockedBuffer{},
		stderr: &testkit.LockedBuffer{}, exited: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		if asJSON {
			var raw json.RawMessage
			if json.NewDecoder(r).Decode(&raw) == nil {
				first <- string(raw)
			}
		} else if line, err := r.ReadString('\n'); err == nil {
			first <- line
		}
		io.Copy(p.stdout, r)
		p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { testkit.Stop(t, p.cmd.Process, p.exited, 30*time.Second) })
	select {
	case s := <-first:
		if m := servedAt.FindStringSubmatch(s); m != nil {
			rememberToken(m[1], env)
		}
		return p, s
	case <-p.exited:
		t.Fatalf("sudocode serve exited: %v\nstderr:\n%s", p.cmd.ProcessState, p.stderr)
	case <-time.After(testkit.Scale(20 * time.Second)):
		t.Fatalf("sudocode serve printed nothing within %v\nstderr:\n%s", testkit.Scale(20*time.Second), p.stderr)
	}
	return nil, ""
}

// TestServeRefusesNonLoopback: any other bind needs a token, before the
// port is opened.
func TestServeRefusesNonLoopback(t *testing.T) {
	env := childEnv(t)
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		r := runCmd(t, env, "", sudocodeBin, "serve", "--addr", addr, "--dir", t.TempDir())
		if r.code != 2 || !strings.Contains(r.stderr, "refusing to listen on "+addr+" without a bearer token") {
			t.Errorf("serve --addr %s: exit %d, stderr %q; want 2 and a refusal", addr, r.code, r.stderr)
		}
	}
	r := runCmd(t, env, "", sudocodeBin, "serve", "--addr", "0.0.0.0:0", "--json")
	var e struct {
		Error struct{ Code, Message string }
	}
	if r.code != 2 || json.Unmarshal([]byte(r.stderr), &e) != nil || e.Error.Code != "invalid_argument" {
		t.Errorf("serve --json with a refused bind: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCmd(t, env, "", sudocodeBin, "serve", "--addr", "nonsense"); r.code != 2 {
		t.Errorf("serve --addr nonsense: exit %d, want 2 (%s)", r.code, r.stderr)
	}
}

var serveLine = regexp.MustCompile(`^sudocode serve: (http://127\.0\.0\.1:\d+/)\?token=([A-Za-z0-9]{26,}) \(MCP at /mcp/tracker, /mcp/rulesets, /mcp/coding, /mcp/agent\)\n$`)

func TestServePrintsItsAddress(t *testing.T) {
	dir := serveRepo(t)
	_, line := startServe(t, childEnv(t), false, "--addr", "127.0.0.1:0", "--dir", dir)
	m := serveLine.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line %q", line)
	}
	// Opened without the token, the page is refused; opened once with it,
	// the browser's cookie opens it.
	resp, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET %s without the token: %d, want 401", m[1], resp.StatusCode)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if resp, err = browser.Get(m[1] + "?token=" + m[2]); err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// The token leaves the address: the page lands on its key (which its
	// script keeps and takes out of the address in turn).
	if resp.StatusCode != 200 || !strings.Contains(string(body), "<title>Sudocode</title>") || !strings.HasPrefix(resp.Request.URL.RawQuery, "key=") {
		t.Errorf("GET %s?token=…: %d at %s %.200s", m[1], resp.StatusCode, resp.Request.URL, body)
	}
	// The printed token is the one the page's writes need (the project has
	// no tracker, so the write itself answers 404, past the guard).
	req, _ := http.NewRequest("POST", m[1]+"api/issues", strings.NewReader(`{"title":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+m[2])
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a write with the printed token: %d, want 404 (no tracker), not refused", resp.StatusCode)
	}
}

// TestServeWithToken: --json prints the endpoints; every endpoint needs the
// token (SUDOCODE_TOKEN here) and refuses a foreign Origin; SIGTERM stops
// the server cleanly even with a client connected.
func TestServeWithToken(t *testing.T) {
	dir := serveRepo(t)
	p, doc := startServe(t, childEnv(t, "SUDOCODE_TOKEN=tok3n"), true, "--addr", "127.0.0.1:0", "--dir", dir, "--json")
	var info struct {
		URL         string            `json:"url"`
		Dir         string            `json:"dir"`
		MCP         map[string]string `json:"mcp"`
		Unavailable map[string]string `json:"unavailable"`
		Auth        bool              `json:"auth"`
	}
	if err := json.Unmarshal([]byte(doc), &info); err != nil {
		t.Fatalf("%v: %s", err, doc)
	}
	if !info.Auth || info.Dir != dir || len(info.MCP) != 4 || info.MCP["tracker"] != strings.TrimSuffix(info.URL, "/")+"/mcp/tracker" {
		t.Errorf("info %+v", info)
	}
	do := func(url string, header map[string]string) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for name, url := range info.MCP {
		if code := do(url, nil); code != http.StatusUnauthorized {
			t.Errorf("%s without the token: %d, want 401", name, code)
		}
		if code := do(url, map[string]string{"Authorization": "Bearer tok3n", "Origin": "https://evil.example"}); code != http.StatusForbidden {
			t.Errorf("%s from a foreign origin: %d, want 403", name, code)
		}
	}
	resp, err := http.Get(info.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the dashboard without the token: %d, want 401", resp.StatusCode)
	}
	session := connectHTTP(t, info.MCP["tracker"], map[string]string{"Authorization": "Bearer tok3n"})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
	defer cancel()
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "init", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	events, err := http.NewRequest("GET", info.URL+"api/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	events.Header.Set("Authorization", "Bearer tok3n")
	stream, err := http.DefaultClient.Do(events)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != 200 {
		t.Fatalf("/api/events with the token: %d", stream.StatusCode)
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatalf("waited %v for serve to exit after SIGTERM\nstderr:\n%s", testkit.Scale(10*time.Second), p.stderr)
	}
	if strings.Contains(p.stderr.String(), drainCutShort) {
		t.Errorf("serve waited for a client or an event stream to drain, then cut it\nstderr:\n%s", p.stderr)
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code after SIGTERM = %d\nstderr:\n%s", code, p.stderr)
	}
}
