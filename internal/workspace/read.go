package workspace

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
	"unicode/utf8"
)

// read_file (docs/coding-tools.md#read_file).

const (
	readMaxLines        = 2000    // fixed per-call line cap
	readDefaultMaxBytes = 131072  // max_bytes default
	readMaxMaxBytes     = 1 << 20 // max_bytes upper bound
	BinarySniffBytes    = 4096    // a NUL in this many leading bytes means binary (docs/coding-tools.md#text-conventions)
	readChunk           = 256 << 10
)

// ReadFile reads the lines start..end (1-based, inclusive; end nil for the
// end of the file) of a UTF-8 text file, keeping whole lines within the
// 2000-line cap and maxBytes. The file is streamed: memory stays bounded
// by maxBytes whatever its size, while the whole file is still scanned for
// total_lines, total_bytes and UTF-8 validity.
// ReadResult is read_file's result (docs/coding-tools.md#read_file).
type ReadResult struct {
	Path       string `json:"path" jsonschema:"Canonical workspace-relative path of the file"`
	Content    string `json:"content" jsonschema:"The selected lines, terminators included"`
	Encoding   string `json:"encoding" jsonschema:"Always utf-8"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line" jsonschema:"Last line returned"`
	TotalLines int    `json:"total_lines"`
	TotalBytes int64  `json:"total_bytes" jsonschema:"Size of the file"`
	BytesRead  int    `json:"bytes_read" jsonschema:"Bytes of content"`
	Truncated  bool   `json:"truncated"`
	// TruncatedBy is lines or bytes, or null.
	TruncatedBy   *string  `json:"truncated_by" jsonschema:"The limit that cut the content: lines or bytes; null when not cut"`
	OutputLines   int      `json:"output_lines"`
	OutputBytes   int      `json:"output_bytes"`
	NextStartLine *int     `json:"next_start_line" jsonschema:"Where to continue reading after a cut; null when done"`
	Warnings      []string `json:"warnings"`
}

func ReadFile(r *Root, path string, start int, end *int, maxBytes int) (*ReadResult, error) {
	if start < 1 {
		start = 1
	}
	if maxBytes <= 0 {
		maxBytes = readDefaultMaxBytes
	}
	maxBytes = min(maxBytes, readMaxMaxBytes)
	endReq := -1 // no end
	if end != nil {
		endReq = *end
	}
	res, err := r.Existing(path)
	if err != nil {
		return nil, err
	}
	f, err := r.OpenRegular(res.Rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()

	mem := readMem.Get().(*readBuffers)
	defer readMem.Put(mem)
	s := lineSelector{start: start, end: endReq, maxBytes: maxBytes, line: 1, out: &mem.out, pending: mem.pending[:0]}
	s.out.Reset()
	defer func() { mem.pending = s.pending[:0] }()
	var (
		buf     = mem.chunk[:]
		sniffed int    // leading bytes checked for NUL
		carry   []byte // an incomplete UTF-8 sequence at the end of the last chunk
		total   int64
		lastNL  = true // the file so far ends with "\n" (or is empty)
	)
	for {
		n, rerr := f.Read(buf)
		chunk := buf[:n]
		if n > 0 {
			if sniffed < BinarySniffBytes {
				k := min(n, BinarySniffBytes-sniffed)
				if bytes.IndexByte(chunk[:k], 0) >= 0 {
					return nil, Errorf(CodeBinaryFile, map[string]any{"path": res.Rel}, "binary file: text read blocked for %s", res.Rel)
				}
				sniffed += k
			}
			var ok bool
			if carry, ok = validUTF8Chunk(carry, chunk); !ok {
				return nil, notUTF8(res.Rel)
			}
			total += int64(n)
			lastNL = chunk[n-1] == '\n'
			s.feed(chunk)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, Errorf(CodeInternal, map[string]any{"path": res.Rel}, "cannot read %s: %v", res.Rel, rerr)
		}
	}
	if len(carry) > 0 {
		return nil, notUTF8(res.Rel)
	}
	totalLines := s.line - 1 // lines completed by "\n"
	if !lastNL {
		totalLines++ // a final line without "\n"
	}
	s.finish()

	content := s.out.String()
	warnings := []string{}
	endLine := start + s.outLines - 1
	if s.outLines == 0 {
		endLine = totalLines
		if endReq >= 0 && endReq < endLine {
			endLine = endReq
		}
	}
	var truncatedBy *string
	var nextStart *int
	if s.truncatedBy != "" {
		truncatedBy = &s.truncatedBy
		if endLine+1 <= totalLines {
			nextStart = new(endLine + 1)
		}
		if s.partial {
			warnings = append(warnings, "first line exceeds max_bytes: returned its first "+strconv.Itoa(len(content))+" bytes")
		}
		limit := "max_bytes (" + strconv.Itoa(maxBytes) + ")"
		if s.truncatedBy == "lines" {
			limit = "the " + strconv.Itoa(readMaxLines) + "-line limit"
		}
		if nextStart != nil {
			warnings = append(warnings, "content truncated at "+limit+"; continue with start_line "+strconv.Itoa(endLine+1))
		} else {
			warnings = append(warnings, "content truncated at "+limit)
		}
	}
	return &ReadResult{Path: res.Rel, Content: content, Encoding: "utf-8", StartLine: start, EndLine: endLine,
		TotalLines: totalLines, TotalBytes: total, BytesRead: len(content), Truncated: s.truncatedBy != "",
		TruncatedBy: truncatedBy, OutputLines: s.outLines, OutputBytes: len(content), NextStartLine: nextStart,
		Warnings: warnings}, nil
}

func notUTF8(rel string) error {
	return Errorf(CodeUnsupportedEncoding, map[string]any{"path": rel, "encoding": "utf-8"}, "%s is not valid UTF-8 text; only UTF-8 is supported", rel)
}

// OpenRegular opens rel through the anchored root for reading, refusing a
// directory (IS_DIRECTORY) and anything that is not a regular file. It
// opens non-blocking so that a FIFO swapped in cannot hang the call, and
// checks the type on the opened file, not the name.
func (r *Root) OpenRegular(rel string) (*os.File, error) {
	f, err := r.FS.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, OpenError(rel, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Errorf(CodeInternal, map[string]any{"path": rel}, "cannot stat %s: %v", rel, err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, Errorf(CodeIsDirectory, map[string]any{"path": rel}, "%s is a directory; use list_dir to list it", rel)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, Errorf(CodeInvalidArgument, map[string]any{"path": rel}, "%s is not a regular file", rel)
	}
	return f, nil
}

// validUTF8Chunk validates carry+chunk as the continuation of a UTF-8
// stream and returns the incomplete sequence at its end (at most 3 bytes)
// to prepend to the next chunk.
func validUTF8Chunk(carry, chunk []byte) ([]byte, bool) {
	if len(carry) > 0 {
		// Complete the carried sequence with the chunk's first bytes.
		need := 4 - len(carry)
		joined := append(append([]byte(nil), carry...), chunk[:min(need, len(chunk))]...)
		r, size := utf8.DecodeRune(joined)
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(joined) && len(chunk) < need { // still incomplete: chunk too short
				return joined, true
			}
			return nil, false
		}
		chunk = chunk[size-len(carry):]
	}
	// Find where a trailing incomplete sequence starts (at most 3 bytes).
	cut := len(chunk)
	for i := len(chunk) - 1; i >= 0 && i >= len(chunk)-3; i-- {
		c := chunk[i]
		if c < 0x80 {
			break
		}
		if c >= 0xC0 { // a lead byte: is its sequence complete?
			if !utf8.FullRune(chunk[i:]) {
				cut = i
			}
			break
		}
	}
	if !utf8.Valid(chunk[:cut]) {
		return nil, false
	}
	if cut < len(chunk) {
		return append([]byte(nil), chunk[cut:]...), true
	}
	return nil, true
}

// readBuffers are what one read_file call reads and collects into, kept
// between calls: a call returns its content as a string of its own, and
// the next call needs the same buffers (up to a 256 KiB chunk and the
// content, at most max_bytes).
type readBuffers struct {
	chunk   [readChunk]byte
	out     bytes.Buffer
	pending []byte
}

var readMem = sync.Pool{New: func() any { return new(readBuffers) }}

// lineSelector consumes a file's bytes in chunks, counts lines and keeps
// the selected ones within the limits.
type lineSelector struct {
	start, end, maxBytes int // end < 0: to the end of the file

	line        int // number of the line being read (1-based)
	out         *bytes.Buffer
	outLines    int
	pending     []byte // the selected line being read, not yet complete
	over        bool   // the line does not fit; pending holds at most a prefix
	truncatedBy string // "lines", "bytes" or "" while not stopped
	partial     bool   // the first line was cut to a UTF-8-safe prefix
}

func (s *lineSelector) selected(line int) bool {
	return line >= s.start && (s.end < 0 || line <= s.end)
}

func (s *lineSelector) stopped() bool {
	return s.truncatedBy != "" || (s.end >= 0 && s.line > s.end)
}

func (s *lineSelector) feed(chunk []byte) {
	for len(chunk) > 0 {
		if s.stopped() || s.line < s.start {
			// Not collecting: count lines, and when start is ahead skip
			// straight to it.
			if s.line >= s.start {
				s.line += bytes.Count(chunk, []byte{'\n'})
				return
			}
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				return
			}
			s.line++
			chunk = chunk[i+1:]
			continue
		}
		i := bytes.IndexByte(chunk, '\n')
		piece := chunk
		if i >= 0 {
			piece = chunk[:i+1]
			chunk = chunk[i+1:]
		} else {
			chunk = nil
		}
		s.add(piece, i >= 0)
	}
}

// add takes a piece of the current (selected) line; complete says the
// piece ends it. Only what can still be returned is kept: the whole line
// while it fits, or, for the first line, enough for its UTF-8-safe prefix.
func (s *lineSelector) add(piece []byte, complete bool) {
	if !s.over {
		room := s.maxBytes - s.out.Len()
		if len(s.pending)+len(piece) <= room {
			s.pending = append(s.pending, piece...)
		} else {
			s.over = true
			if s.outLines == 0 {
				keep := min(len(piece), room+utf8.UTFMax-len(s.pending))
				s.pending = append(s.pending, piece[:keep]...)
			}
		}
	}
	if complete {
		s.endLine()
	}
}

// endLine closes the current selected line: it is kept, cut, or stops the
// selection.
func (s *lineSelector) endLine() {
	defer func() { s.line++; s.pending = s.pending[:0]; s.over = false }()
	if s.outLines >= readMaxLines {
		s.truncatedBy = "lines"
		return
	}
	if !s.over {
		s.out.Write(s.pending)
		s.outLines++
		return
	}
	if s.outLines == 0 {
		s.out.Write(UTF8Prefix(s.pending, s.maxBytes))
		s.outLines = 1
		s.partial = true
	}
	s.truncatedBy = "bytes"
}

// finish handles a last selected line without "\n".
func (s *lineSelector) finish() {
	if (len(s.pending) > 0 || s.over) && !s.stopped() && s.selected(s.line) {
		s.endLine()
	}
}

// UTF8Prefix is the longest prefix of b of at most n bytes that does not
// split a UTF-8 sequence.
func UTF8Prefix(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	cut := n
	for cut > 0 && cut > n-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return b[:cut]
}
