package gitx

import "bytes"

// capWriter keeps the first limit bytes written to it.
type capWriter struct {
	limit int
	buf   bytes.Buffer
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.limit - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (w *capWriter) String() string { return w.buf.String() }
