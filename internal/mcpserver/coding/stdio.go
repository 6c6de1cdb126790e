package coding

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"sync"
)

// ServeStdio reads newline-delimited JSON-RPC from in and writes one line
// per response to out, until in ends. Requests run concurrently; each
// response line is written whole.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	c := &conn{}
	r := bufio.NewReaderSize(in, 1<<20)
	var wmu sync.Mutex
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			wg.Add(1)
			go func(line []byte) {
				defer wg.Done()
				if resp := s.handleMessage(ctx, c, line); resp != nil {
					wmu.Lock()
					out.Write(append(resp, '\n'))
					wmu.Unlock()
				}
			}(line)
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}
