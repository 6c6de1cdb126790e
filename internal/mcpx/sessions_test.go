package mcpx

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A POST without a session id that opens no lasting session (a request
// other than initialize, a body that is not JSON) gives its place back at
// once: a client with a one-session limit can still initialize after
// many of them, and not twice.
func TestSessionPlaceFreedWhenNoSessionLasts(t *testing.T) {
	url := startHandler(t, Transport{Sessions: NewSessions(SessionLimits{PerClient: 1})})
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`not json`,
	} {
		// Read to the end: a streamed answer reaches the client before
		// the handler returns, its end only after.
		io.Copy(io.Discard, post(t, url, strings.NewReader(body), nil).Body)
	}
	if resp := post(t, url, strings.NewReader(initializeBody), nil); resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("initialize after requests that opened no session: %d %s", resp.StatusCode, b)
	}
	resp := post(t, url, strings.NewReader(initializeBody), nil)
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), "-32030") {
		t.Errorf("a second session past a limit of one: %d %s", resp.StatusCode, b)
	}
}

// release may be called more than once; it gives back one place.
func TestSessionsReleaseOnce(t *testing.T) {
	s := NewSessions(SessionLimits{PerClient: 1, Total: 2})
	release, err := s.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open("a"); err == nil || err.Limit != "client" {
		t.Fatalf("a's second session: %v, want the per-client limit", err)
	}
	release()
	release()
	if _, err := s.Open("a"); err != nil {
		t.Fatalf("a after release: %v", err)
	}
	if _, err := s.Open("b"); err != nil {
		t.Fatalf("b: %v", err)
	}
	if _, err := s.Open("c"); err == nil || err.Limit != "total" || err.Status() != http.StatusServiceUnavailable {
		t.Errorf("c past the total: %v", err)
	}
}
