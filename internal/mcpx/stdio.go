package mcpx

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewStdioTransport is the SDK's newline-delimited JSON transport over in
// and out, with every line checked before the SDK reads it. The SDK ends
// the whole connection at the first line it cannot decode (and with it a
// server's work in progress: the orchestrator's running agents); here
// such a line is answered on out with a JSON-RPC error, as JSON-RPC asks,
// and skipped: -32700 for a line that is not JSON, -32600 for JSON that is
// not one JSON-RPC message (a batch included: MCP has none since
// 2025-06-18, and the SDK drops the connection on one).
func NewStdioTransport(in io.Reader, out io.Writer, logger *slog.Logger) mcp.Transport {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	w := &lineWriter{w: out}
	return &mcp.IOTransport{
		Reader: &lineFilter{in: in, r: bufio.NewReaderSize(in, 64<<10), out: w, logger: logger},
		Writer: w,
	}
}

// lineWriter writes whole lines, one at a time: the SDK's messages and the
// filter's errors share stdout and must not interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves stdout open: logs may still be written after the session.
func (l *lineWriter) Close() error { return nil }

// lineFilter passes the SDK the lines that are one JSON-RPC message each.
type lineFilter struct {
	in      io.Reader
	r       *bufio.Reader
	out     *lineWriter
	logger  *slog.Logger
	pending []byte // the rest of the line being handed over
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.readLine()
		if msg := bytes.TrimSpace(line); len(msg) > 0 && f.accept(msg) {
			f.pending = append(msg, '\n')
		}
		if err != nil && len(f.pending) == 0 {
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *lineFilter) Close() error {
	if c, ok := f.in.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// errLineTooLong marks a line past mcp.DefaultMaxLineLength; it was
// discarded up to its end.
var errLineTooLong = errors.New("line too long")

// readLine reads up to the next newline (or the end of the input), with
// no more than mcp.DefaultMaxLineLength bytes kept. An over-long line is
// answered here and returned empty.
func (f *lineFilter) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(line)+len(chunk) > mcp.DefaultMaxLineLength {
			line = nil
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = f.r.ReadSlice('\n')
			}
			f.refuse(jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a message is at most %d bytes", mcp.DefaultMaxLineLength), nil, errLineTooLong)
			return nil, err
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// accept reports whether msg is one JSON-RPC message the SDK can decode,
// and answers it with an error if not.
func (f *lineFilter) accept(msg []byte) bool {
	if !json.Valid(msg) {
		f.refuse(jsonrpc.CodeParseError, "Parse error: a line must hold one JSON-RPC message as JSON", nil, nil)
		return false
	}
	switch msg[0] {
	case '{':
	case '[':
		f.refuse(jsonrpc.CodeInvalidRequest, "Invalid Request: batches are not supported; send one JSON-RPC message per line", nil, nil)
		return false
	default:
		f.refuse(jsonrpc.CodeInvalidRequest, "Invalid Request: a JSON-RPC message is a JSON object", nil, nil)
		return false
	}
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		f.refuse(jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error(), idOf(msg), err)
		return false
	}
	return true
}

// idOf is the id of a message object when it is a valid one (a string or
// a number), so that the client can match the error to its request; else
// nil, written as null.
func idOf(msg []byte) json.RawMessage {
	var m struct{ ID json.RawMessage }
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	json.Unmarshal(m.ID, &v)
	if id, err := jsonrpc.MakeID(v); err != nil || !id.IsValid() {
		return nil
	}
	return m.ID
}

// refuse writes a JSON-RPC error response for a line that is skipped.
func (f *lineFilter) refuse(code int, message string, id json.RawMessage, cause error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", id, map[string]any{"code": code, "message": message}})
	f.logger.Warn("stdin: a line that is not a JSON-RPC message was answered with an error and skipped", "code", code, "err", cause)
	f.out.Write(append(body, '\n'))
}
