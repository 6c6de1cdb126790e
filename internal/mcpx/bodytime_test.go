package mcpx

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The body deadline bounds the body only: once it is read, a handler that
// works longer than the deadline (a long tool call) keeps its request
// context and answers; a GET stream with no body is never cut.
func TestBodyDeadlineEndsWithTheBody(t *testing.T) {
	ln, err := Listen(Transport{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(time.Second):
		case <-r.Context().Done():
			http.Error(w, "request context ended: "+context.Cause(r.Context()).Error(), http.StatusInternalServerError)
			return
		}
		io.WriteString(w, "worked on "+string(body))
	})
	go ServeHTTP(ctx, ln, h, 200*time.Millisecond, quietLogger())
	url := "http://" + ln.Addr().String() + "/"

	for _, method := range []string{http.MethodPost, http.MethodGet} {
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader("payload")
		}
		req, _ := http.NewRequest(method, url, body)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := "worked on "
		if method == http.MethodPost {
			want += "payload"
		}
		if resp.StatusCode != http.StatusOK || string(got) != want {
			t.Errorf("%s working 1s past a 200ms body deadline: %d %q, want 200 %q", method, resp.StatusCode, got, want)
		}
	}
}
