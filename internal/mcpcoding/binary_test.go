package mcpcoding_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// runBinary runs the binary to completion (with a deadline) and returns
// its exit code, stdout and stderr.
func runBinary(t *testing.T, env []string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = childEnv(env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr testkit.LockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%v did not exit", args)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

func TestBinaryHelp(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runBinary(t, nil, "", "--help")
	if code != 0 {
		t.Fatalf("--help exited %d: %s", code, stderr)
	}
	if !strings.Contains(stdout+stderr, "--workspace") {
		t.Fatalf("--help does not mention --workspace:\n%s%s", stdout, stderr)
	}
	for _, flag := range []string{"--stdio", "--host", "--port", "--auth-token", "--dangerously-skip-all-permissions", "--enable-view-image"} {
		if !strings.Contains(stdout+stderr, flag) {
			t.Errorf("--help does not mention %s", flag)
		}
	}
}

// TestBinaryRefusesWorkspaces: /, $HOME (also through a symlink), a
// missing path and a file are refused with a message, over both
// transports.
func TestBinaryRefusesWorkspaces(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	link := filepath.Join(t.TempDir(), "home-link")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	cases := []struct {
		name string
		env  []string
		args []string
		msg  string
	}{
		{"filesystem root", nil, []string{"--workspace", "/"}, "root"},
		{"filesystem root via env", []string{"CODING_TOOLS_MCP_WORKSPACE=/"}, nil, "root"},
		{"filesystem root with dots", nil, []string{"--workspace", "/tmp/.."}, "root"},
		{"home", []string{"HOME=" + home}, []string{"--workspace", home}, "home"},
		{"home with a trailing slash", []string{"HOME=" + home}, []string{"--workspace", home + "/"}, "home"},
		{"home through a symlink", []string{"HOME=" + link}, []string{"--workspace", home}, "home"},
		{"symlink to home", []string{"HOME=" + home}, []string{"--workspace", link}, "home"},
		{"missing", nil, []string{"--workspace", filepath.Join(home, "missing")}, "not exist"},
		{"file", nil, []string{"--workspace", file}, "not a directory"},
	}
	for _, c := range cases {
		for _, transport := range [][]string{{"--stdio"}, {"--port", "0"}} {
			args := append(append([]string{}, transport...), c.args...)
			code, stdout, stderr := runBinary(t, c.env, "", args...)
			if code == 0 {
				t.Errorf("%s %v: exit 0, want refusal", c.name, transport)
				continue
			}
			if !strings.Contains(strings.ToLower(stderr), c.msg) {
				t.Errorf("%s %v: stderr %q does not say %q", c.name, transport, stderr, c.msg)
			}
			if stdout != "" {
				t.Errorf("%s %v: stdout %q", c.name, transport, stdout)
			}
		}
	}
}

func TestBinaryRefusesExposureWithoutToken(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, host := range []string{"0.0.0.0", "::", "[::]", "192.0.2.1", "example.com"} {
		code, _, stderr := runBinary(t, nil, "", "--workspace", ws, "--host", host, "--port", "0")
		if code == 0 {
			t.Errorf("--host %s without a token: exit 0", host)
			continue
		}
		if !strings.Contains(stderr, "token") {
			t.Errorf("--host %s: stderr %q does not mention the token", host, stderr)
		}
	}
}

// httpBinary is the binary serving HTTP.
type httpBinary struct {
	cmd    *exec.Cmd
	url    string // as logged
	port   string
	stderr *testkit.LockedBuffer
	done   chan error
}

var urlLog = regexp.MustCompile(`url=(http://\S+/mcp)`)

// startHTTPBinary starts the binary on --port 0 and waits for the URL it
// logs on stderr.
func startHTTPBinary(t *testing.T, env []string, args ...string) *httpBinary {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"--workspace", t.TempDir(), "--port", "0"}, args...)...)
	cmd.Env = childEnv(env...)
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := &testkit.LockedBuffer{}
	cmd.Stdout = stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &httpBinary{cmd: cmd, stderr: &testkit.LockedBuffer{}, done: make(chan error, 1)}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			b.stderr.Write([]byte(line + "\n"))
			if m := urlLog.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, pr)
		b.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-b.done
		if stdout.String() != "" {
			t.Errorf("HTTP server wrote to stdout: %q", stdout)
		}
	})
	select {
	case b.url = <-found:
	case err := <-b.done:
		b.done <- err // for the cleanup, which waits for it
		t.Fatalf("binary exited (%v) before logging its URL: %s", err, b.stderr)
	case <-time.After(20 * time.Second):
		t.Fatalf("no URL logged on stderr: %s", b.stderr)
	}
	u, err := url.Parse(b.url)
	if err != nil {
		t.Fatal(err)
	}
	b.port = u.Port()
	if b.port == "" || b.port == "0" {
		t.Fatalf("logged URL %q has no real port", b.url)
	}
	return b
}

// stop sends SIGTERM and returns the exit code.
func (b *httpBinary) stop(t *testing.T) int {
	t.Helper()
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("no exit within 10s of SIGTERM: %s", b.stderr)
	}
	b.done <- nil // for the cleanup
	return b.cmd.ProcessState.ExitCode()
}

func TestBinaryHTTPLifecycle(t *testing.T) {
	t.Parallel()
	b := startHTTPBinary(t, nil)
	if !strings.HasPrefix(b.url, "http://127.0.0.1:") {
		t.Fatalf("logged URL %q, want the loopback default", b.url)
	}
	r := post(t, b.url, nil, initReq)
	if r.status != 200 || decode(t, r.body).Error != nil {
		t.Fatalf("initialize: HTTP %d %s", r.status, r.body)
	}
	sid := r.header.Get("Mcp-Session-Id")
	r = post(t, b.url, hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if r.status != 200 || decode(t, r.body).Error != nil {
		t.Fatalf("tools/list: HTTP %d %s", r.status, r.body)
	}
	if r := do(t, "GET", b.url, nil, ""); r.status != 405 {
		t.Fatalf("GET: HTTP %d", r.status)
	}
	if code := b.stop(t); code != 0 {
		t.Fatalf("exit %d after SIGTERM: %s", code, b.stderr)
	}
	if _, err := net.DialTimeout("tcp", "127.0.0.1:"+b.port, time.Second); err == nil {
		t.Fatal("still listening after exit")
	}
}

// TestBinaryHTTPWithToken: a non-loopback bind starts with a token (flag
// or environment, the profile's names or the other servers'), and then
// every request needs it.
func TestBinaryHTTPWithToken(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"flag", nil, []string{"--host", "0.0.0.0", "--auth-token", "tok-123"}},
		{"env", []string{"CODING_TOOLS_MCP_AUTH_TOKEN=tok-123"}, []string{"--host", "0.0.0.0"}},
		{"loopback with a token", nil, []string{"--auth-token", "tok-123"}},
		// the other servers' names for the token
		{"flag alias", nil, []string{"--host", "0.0.0.0", "--token", "tok-123"}},
		{"env alias", []string{"SUDOCODE_TOKEN=tok-123"}, []string{"--host", "0.0.0.0"}},
		{"profile env wins", []string{"CODING_TOOLS_MCP_AUTH_TOKEN=tok-123", "SUDOCODE_TOKEN=other"}, []string{"--host", "0.0.0.0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := startHTTPBinary(t, c.env, c.args...)
			u := "http://127.0.0.1:" + b.port + "/mcp"
			r := post(t, u, nil, pingReq)
			wantHTTPErrorID(t, r, 401, -32000, "1", "Unauthorized")
			if w := r.header.Get("WWW-Authenticate"); w != `Bearer realm="coding-tools-mcp"` {
				t.Fatalf("WWW-Authenticate = %q", w)
			}
			if r := post(t, u, hdr{"Authorization": "Bearer tok-123"}, pingReq); r.status != 200 {
				t.Fatalf("with the token: HTTP %d %s", r.status, r.body)
			}
			if code := b.stop(t); code != 0 {
				t.Fatalf("exit %d", code)
			}
		})
	}
}

// TestBinaryAllowOrigin: a browser origin given with --allow-origin is
// accepted besides the loopback ones, as on the other servers; others
// stay denied.
func TestBinaryAllowOrigin(t *testing.T) {
	t.Parallel()
	b := startHTTPBinary(t, nil, "--allow-origin", "https://app.example", "--allow-origin", "https://b.example:8443")
	u := "http://127.0.0.1:" + b.port + "/mcp"
	for _, o := range []string{"https://app.example", "https://b.example:8443", "http://localhost:3000"} {
		if r := post(t, u, hdr{"Origin": o}, pingReq); r.status != 200 {
			t.Errorf("Origin %s: HTTP %d %s, want 200", o, r.status, r.body)
		}
	}
	for _, o := range []string{"https://evil.example", "https://b.example", "http://app.example"} {
		wantHTTPErrorID(t, post(t, u, hdr{"Origin": o}, pingReq), 403, -32600, "1", "Origin denied")
	}
	if code := b.stop(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestBinaryStdioSignal: SIGTERM ends a stdio server whose stdin is
// still open, with status 0.
func TestBinaryStdioSignal(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binPath, "--stdio", "--workspace", t.TempDir())
	cmd.Env = childEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testkit.LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	io.WriteString(stdin, pingReq+"\n")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || decode(t, []byte(line)).Error != nil {
		t.Fatalf("ping: %q %v", line, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("stdio server ignored SIGTERM: %s", stderr)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after SIGTERM: %s", code, stderr)
	}
}

// TestBinaryStdioEOF: stdout carries exactly the responses, and EOF ends
// the process with status 0.
func TestBinaryStdioEOF(t *testing.T) {
	t.Parallel()
	in := "\n" + initReq + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n" + "garbage\n"
	code, stdout, stderr := runBinary(t, []string{"CODING_TOOLS_MCP_TRACE=1"}, in, "--stdio", "--workspace", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d stdout lines, want 3:\n%s", len(lines), stdout)
	}
	for _, l := range lines {
		decode(t, []byte(l))
	}
}
