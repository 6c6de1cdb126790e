package mcpx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/secret"
)

// Audit log defaults: a file is rotated when a line would take it past
// DefaultAuditMaxBytes, and DefaultAuditKeep rotated files are kept
// (FILE.1 the newest).
const (
	DefaultAuditMaxBytes = 10 << 20
	DefaultAuditKeep     = 3
)

// AuditLog writes one JSON line per tool call to a file, rotated by size,
// or to a stream (stderr). Lines are written whole, one at a time, so
// concurrent calls never interleave or lose one, a rotation included.
type AuditLog struct {
	mu       sync.Mutex
	w        io.Writer
	f        *os.File // nil for a stream, which is never rotated
	path     string
	size     int64
	maxBytes int64
	keep     int
	buf      bytes.Buffer
}

// AuditRecord is one line of the audit log.
type AuditRecord struct {
	Time       time.Time       `json:"time"`
	Client     string          `json:"client"`
	Server     string          `json:"server"`
	Tool       string          `json:"tool"`
	Outcome    Outcome         `json:"outcome"`
	DurationMS float64         `json:"duration_ms"`
	Session    string          `json:"session,omitempty"`
	Arguments  json.RawMessage `json:"arguments"`
	Error      string          `json:"error,omitempty"`
}

// OpenAuditLog opens the audit log at path, appending; "-" writes to
// stderr. maxBytes and keep of 0 are the defaults.
func OpenAuditLog(path string, maxBytes int64, keep int) (*AuditLog, error) {
	if path == "-" {
		return NewAuditStream(os.Stderr), nil
	}
	if maxBytes <= 0 {
		maxBytes = DefaultAuditMaxBytes
	}
	if keep <= 0 {
		keep = DefaultAuditKeep
	}
	a := &AuditLog{path: path, maxBytes: maxBytes, keep: keep}
	if err := a.open(); err != nil {
		return nil, err
	}
	return a, nil
}

// NewAuditStream writes the audit lines to w, never rotated.
func NewAuditStream(w io.Writer) *AuditLog { return &AuditLog{w: w} }

func (a *AuditLog) open() error {
	f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit log: %w", err)
	}
	a.f, a.w, a.size = f, f, st.Size()
	return nil
}

// Write appends one record. Arguments are given raw; they and the error
// are written with secrets redacted (secret.Redact: the values of keys
// that name secrets, and each secret internal/secret finds in a string,
// the text around it kept; long strings cut).
func (a *AuditLog) Write(rec AuditRecord) error {
	rec.Time = rec.Time.UTC()
	rec.Arguments = redactArguments(rec.Arguments)
	if rec.Error != "" {
		rec.Error, _ = secret.Redact(rec.Error).(string)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.buf.Reset()
	enc := json.NewEncoder(&a.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return err
	}
	line := a.buf.Bytes()
	if a.f != nil && a.size > 0 && a.size+int64(len(line)) > a.maxBytes {
		if err := a.rotate(); err != nil {
			return err
		}
	}
	n, err := a.w.Write(line)
	a.size += int64(n)
	return err
}

// rotate shifts FILE.k to FILE.k+1 (dropping the oldest) and FILE to
// FILE.1, and starts a new FILE. Called with mu held.
func (a *AuditLog) rotate() error {
	a.f.Close()
	os.Remove(a.path + "." + strconv.Itoa(a.keep))
	for k := a.keep - 1; k >= 1; k-- {
		os.Rename(a.path+"."+strconv.Itoa(k), a.path+"."+strconv.Itoa(k+1))
	}
	os.Rename(a.path, a.path+".1") // when it fails, the lines go on in FILE
	return a.open()
}

// Close closes the file.
func (a *AuditLog) Close() error {
	if a == nil || a.f == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.f.Close()
}

// redactArguments is the arguments with secrets replaced by [REDACTED];
// arguments that are not JSON are recorded by their size only.
func redactArguments(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		b, _ := json.Marshal(fmt.Sprintf("[not JSON, %d bytes]", len(raw)))
		return b
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(secret.Redact(v)); err != nil {
		return json.RawMessage(`"[unencodable]"`)
	}
	return bytes.TrimRight(out.Bytes(), "\n")
}
