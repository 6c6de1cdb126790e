package procs

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// MaxLines is the most lines one read of a stream returns.
const MaxLines = 2000

// Output is one stream's share of a snapshot.
type Output struct {
	Text        string // new output since the previous read, tail-cut
	Truncated   bool   // this read was cut
	TruncatedBy string // "lines" or "bytes" when cut
	Dropped     int64  // bytes the session buffer has discarded so far
	Omitted     int64  // unread bytes lost to that overflow before this read
}

// cutTail keeps the end of b: at most maxLines lines and maxBytes bytes,
// starting at a line start; when the last line alone is too long, its
// final bytes (its newline dropped), starting on a character boundary.
// Invalid UTF-8 has already been replaced. by names the binding limit.
func cutTail(b []byte, maxBytes, maxLines int) (out []byte, by string) {
	if n := lineCount(b); n > maxLines {
		// Skip the final newline: it ends the last line, it does not
		// start one.
		end := len(b)
		if b[end-1] == '\n' {
			end--
		}
		seen := 0
		for j := end - 1; j >= 0; j-- {
			if b[j] == '\n' {
				if seen++; seen == maxLines {
					b = b[j+1:]
					break
				}
			}
		}
		by = "lines"
	}
	if len(b) > maxBytes {
		cut := len(b) - maxBytes
		// The first line start at or after cut: just after a newline
		// at cut-1 or later, and not the end of b.
		if k := bytes.IndexByte(b[cut-1:], '\n'); k >= 0 && cut+k < len(b) {
			b = b[cut+k:]
		} else {
			b = bytes.TrimSuffix(b, []byte("\n"))
			b = bytes.TrimSuffix(b, []byte("\r"))
			if len(b) > maxBytes {
				b = b[len(b)-maxBytes:]
				for len(b) > 0 && !utf8.RuneStart(b[0]) {
					b = b[1:]
				}
			}
		}
		by = "bytes"
	}
	return b, by
}

// lineCount counts lines as the profile does: each newline ends one, and
// a final segment without a newline is one more.
func lineCount(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// readStream takes a stream's unread bytes and shapes them for a result,
// adding warnings about what was cut or lost.
func readStream(name string, r *ring, maxBytes int, warnings *[]string) Output {
	data, omitted := r.take()
	o := Output{Dropped: r.dropped(), Omitted: omitted}
	if omitted > 0 {
		*warnings = append(*warnings, fmt.Sprintf("%s: %d bytes of unread output were dropped by the 1 MiB session buffer before this read", name, omitted))
	}
	if !utf8.Valid(data) {
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	total, lines := len(data), lineCount(data)
	out, by := cutTail(data, maxBytes, MaxLines)
	if by != "" {
		o.Truncated, o.TruncatedBy = true, by
		*warnings = append(*warnings, fmt.Sprintf("%s truncated: kept the last %d of %d bytes (%d of %d lines); max_output_bytes is %d, at most %d lines",
			name, len(out), total, lineCount(out), lines, maxBytes, MaxLines))
	}
	o.Text = string(out)
	return o
}
