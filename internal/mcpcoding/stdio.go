package mcpcoding

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
)

// ServeStdio is the profile's stdio transport, which the SDK's cannot be:
// a line may hold a batch, and the lines' requests run concurrently.
//
// ServeStdio reads newline-delimited JSON-RPC from in and writes one line
// per response to out, until in ends or ctx is done (a signal: the read
// in progress cannot be interrupted, so it is left behind). Requests run
// concurrently; each response line is written whole.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	p := connect(s.sdk, nil)
	defer p.Close() // after the requests under way are answered
	var wmu sync.Mutex
	var wg sync.WaitGroup
	defer wg.Wait()
	lines := make(chan []byte)
	errc := make(chan error, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		r := bufio.NewReaderSize(in, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- line:
				case <-stop:
					return
				}
			}
			if err != nil {
				errc <- err
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-errc:
			if err == io.EOF {
				return nil
			}
			return err
		case line := <-lines:
			answer := func() {
				if a := s.handleMessage(ctx, p, line); a.body != nil {
					wmu.Lock()
					out.Write(append(a.body, '\n'))
					wmu.Unlock()
				}
			}
			// An initialize is answered before the next line is read, so
			// that the requests a client sends right after it find the
			// session initialized (the SDK does the same).
			if isInitialize(line) {
				answer()
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				answer()
			}()
		}
	}
}

// isInitialize reports whether line is one initialize request.
func isInitialize(line []byte) bool {
	var m struct {
		Method string `json:"method"`
	}
	return bytes.Contains(line, []byte(`"initialize"`)) && json.Unmarshal(line, &m) == nil && m.Method == "initialize"
}
