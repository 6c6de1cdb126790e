// Package valkeytest starts a real Valkey or Redis server for tests: the
// valkey-server binary where installed, else redis-server (protocol
// compatible), on a free loopback port, with persistence off. Without either
// binary a test is skipped on a developer's machine and fails under CI=true,
// so CI never silently runs less than it should.
package valkeytest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// Server is a running server process.
type Server struct {
	Addr    string // 127.0.0.1:port
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd has exited
	bin     string
	dir     string
	port    int
	extra   []string
	busPort int // cluster nodes only
}

// Binaries are the server programs tried, in order.
var Binaries = []string{"valkey-server", "redis-server"}

// ErrNoBinary means no server program is installed.
var ErrNoBinary = errors.New("neither valkey-server nor redis-server is installed (apt-get install -y redis-server)")

// Start runs a new server on a free port and waits until it answers PING.
func Start() (*Server, error) {
	bin, err := findBinary()
	if err != nil {
		return nil, err
	}
	var lastErr error
	for range 5 { // the free port can be taken between the probe and the bind
		s, err := start(bin)
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func findBinary() (string, error) {
	for _, b := range Binaries {
		if p, err := exec.LookPath(b); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBinary
}

func start(bin string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "valkeytest-")
	if err != nil {
		return nil, err
	}
	return launch(bin, dir, port)
}

// launch runs bin on port with its files in dir (removed on failure or
// Stop) and waits until it answers PING.
func launch(bin, dir string, port int, extra ...string) (*Server, error) {
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no", "--loglevel", "warning"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	exited := make(chan struct{})
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cmd: cmd, exited: exited, bin: bin, dir: dir, port: port, extra: extra}
	go func() { cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			os.RemoveAll(dir)
			return nil, fmt.Errorf("%s exited at start (port %d taken?)", bin, port)
		default:
		}
		if ping(s.Addr) == nil {
			return s, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("%s did not answer PING on %s within 10s", bin, s.Addr)
}

// Stop kills the server and removes its directory.
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Kill()
	}
	os.RemoveAll(s.dir)
}

// Kill stops the server process as a crash would, keeping its port and
// directory for Restart: what a client sees when its store goes down.
func (s *Server) Kill() {
	if s.cmd.Process != nil {
		s.cmd.Process.Kill()
	}
	<-s.exited
}

// Restart starts a killed server again on the same port (empty: nothing
// is persisted), so that a client's reconnection can be tested.
func (s *Server) Restart() error {
	n, err := launch(s.bin, s.dir, s.port, s.extra...)
	if err != nil {
		return err
	}
	s.cmd, s.exited = n.cmd, n.exited
	return nil
}

// Do sends one command and returns its reply: a status line, or a bulk
// string's content. It is enough for FLUSHALL, PING and CLUSTER without a
// client library.
func (s *Server) Do(args ...string) (string, error) {
	return do(s.Addr, args...)
}

func ping(addr string) error {
	reply, err := do(addr, "PING")
	if err == nil && reply != "+PONG" {
		err = fmt.Errorf("PING answered %q", reply)
	}
	return err
}

func do(addr string, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(encode(args)); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	line = strings.TrimRight(line, "\r\n")
	switch {
	case err != nil:
		return "", err
	case strings.HasPrefix(line, "-"):
		return line, fmt.Errorf("%s: %s", strings.Join(args, " "), line[1:])
	case strings.HasPrefix(line, "$"): // a bulk string: return its content
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", fmt.Errorf("%s: bad reply %q", strings.Join(args, " "), line)
		}
		buf := make([]byte, n)
		_, err = io.ReadFull(r, buf)
		return string(buf), err
	}
	return line, nil
}

// encode writes a command in RESP.
func encode(args []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return []byte(b.String())
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var (
	shared     *Server
	sharedErr  error
	sharedOnce sync.Once
)

// Shared returns the test package's server, started on first use, emptied
// for the calling test. Call Main from TestMain so it is stopped after.
func Shared(t testing.TB) *Server {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = Start() })
	if sharedErr != nil {
		if errors.Is(sharedErr, ErrNoBinary) {
			testkit.Missing(t, "%v", sharedErr)
		}
		t.Fatal(sharedErr)
	}
	if _, err := shared.Do("FLUSHALL"); err != nil {
		t.Fatalf("FLUSHALL: %v", err)
	}
	return shared
}

// Main runs the package's tests (with testkit.Run, which removes the
// binaries they built) and stops the shared server after them:
// func TestMain(m *testing.M) { os.Exit(valkeytest.Main(m)) }
func Main(m *testing.M) int {
	code := testkit.Run(m)
	if shared != nil {
		shared.Stop()
	}
	return code
}
