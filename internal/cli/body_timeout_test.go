package cli_test

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// trickle sends a POST's headers to the server at url, then its body a
// byte every 200 ms, more often than the server's body timeout: a server
// that timed out only a silent body would read its 100000 bytes for
// hours. It fails t unless the server closes the connection before
// the test's deadline.
func trickle(t *testing.T, name, url string) {
	t.Helper()
	hostport := strings.TrimPrefix(url, "http://")
	path := hostport[strings.IndexByte(hostport, '/'):]
	hostport = hostport[:strings.IndexByte(hostport, '/')]
	conn, err := net.Dial("tcp", hostport)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = io.WriteString(conn, "POST "+path+" HTTP/1.1\r\nHost: "+hostport+"\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{")
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		io.Copy(io.Discard, conn) // a response, if any, then the close
		close(closed)
	}()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(testkit.Scale(30 * time.Second))
	for {
		select {
		case <-closed:
			return
		case <-tick.C:
			conn.Write([]byte(" "))
		case <-deadline:
			t.Fatalf("%s: waited %v for the server to close a connection whose body trickled in; want it cut off after the body timeout, 1s",
				name, testkit.Scale(30*time.Second))
		}
	}
}

// A client that sends its headers and then its body a byte at a time must
// not hold a connection (and a goroutine, and a body buffer) forever: the
// body has SUDOCODE_BODY_TIMEOUT to arrive, here 1s.
func TestHTTPCutsTricklingBodies(t *testing.T) {
	t.Parallel()
	env := childEnv(t, "SUDOCODE_BODY_TIMEOUT=1s")
	for name, srv := range map[string]*httpServer{
		"sudocode mcp rulesets": startHTTP(t, env, sudocodeBin, "mcp", "rulesets", "--http", "127.0.0.1:0", "--store", t.TempDir()),
		"sudocode mcp coding":   startHTTP(t, env, sudocodeBin, "mcp", "coding", "--workspace", t.TempDir(), "--port", "0"),
	} {
		trickle(t, name, srv.url)
	}
}
