package cli_test

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// trickle sends a POST's headers to the server at url, then its body one
// byte a second, and returns how long the server let it go on before it
// closed the connection (at most limit).
func trickle(t *testing.T, url string, limit time.Duration) time.Duration {
	t.Helper()
	hostport := strings.TrimPrefix(url, "http://")
	path := hostport[strings.IndexByte(hostport, '/'):]
	hostport = hostport[:strings.IndexByte(hostport, '/')]
	conn, err := net.Dial("tcp", hostport)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
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
	for time.Since(start) < limit {
		select {
		case <-closed:
			return time.Since(start)
		case <-time.After(time.Second):
		}
		conn.Write([]byte(" "))
	}
	return limit
}

// A client that sends its headers and then its body a byte a second must
// not hold a connection (and a goroutine, and a body buffer) forever: the
// body has SUDOCODE_BODY_TIMEOUT to arrive, here 1s.
func TestHTTPCutsTricklingBodies(t *testing.T) {
	t.Parallel()
	env := childEnv(t, "SUDOCODE_BODY_TIMEOUT=1s")
	for name, srv := range map[string]*httpServer{
		"sudocode mcp rulesets": startHTTP(t, env, sudocodeBin, "mcp", "rulesets", "--http", "127.0.0.1:0", "--store", t.TempDir()),
		"sudocode mcp coding":   startHTTP(t, env, sudocodeBin, "mcp", "coding", "--workspace", t.TempDir(), "--port", "0"),
	} {
		if took := trickle(t, srv.url, 8*time.Second); took > 4*time.Second {
			t.Errorf("%s: a body trickling in a byte a second was still read after %v; want it cut off after about 1s", name, took)
		}
	}
}
