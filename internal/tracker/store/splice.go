package store

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
)

// linePrefix starts every canonical record line; the id follows it.
var linePrefix = []byte(`{"id":"`)

// errNotCanonical means a JSONL file is not in the form this package
// writes; the caller then writes it whole from the cache.
var errNotCanonical = errors.New("not a canonical JSONL file")

// spliceFile writes to dst the canonical JSONL file src with changed
// record lines (by id) merged in: a line whose id changed is replaced, a
// new id is inserted in order. It finds each place by binary search over
// the sorted file and copies the unchanged stretches file to file (in the
// kernel where it can), so a change costs about the same whatever the
// file's size.
func spliceFile(src *os.File, changed map[string][]byte, dst *os.File) error {
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	ids := make([]string, 0, len(changed))
	for id := range changed {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var done int64 // src is copied up to here
	for _, id := range ids {
		start, end, found, err := findLine(src, size, id)
		if err != nil {
			return err
		}
		if err := copyRange(dst, src, done, start); err != nil {
			return err
		}
		if _, err := dst.Write(changed[id]); err != nil {
			return err
		}
		done = start
		if found {
			done = end
		}
	}
	return copyRange(dst, src, done, size)
}

func copyRange(dst, src *os.File, from, to int64) error {
	if to <= from {
		return nil
	}
	if _, err := src.Seek(from, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(dst, &io.LimitedReader{R: src, N: to - from})
	return err
}

// findLine returns the byte range of the line holding id, or (found false)
// the offset where a line with id belongs.
func findLine(f *os.File, size int64, id string) (start, end int64, found bool, err error) {
	lo, hi := int64(0), size // the answer's line starts in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo)/2
		ls, le, lid, err := lineAfter(f, mid, size)
		if err != nil {
			return 0, 0, false, err
		}
		if ls >= hi { // no line starts in [mid, hi): look left
			hi = mid
			continue
		}
		switch {
		case lid == id:
			return ls, le, true, nil
		case lid < id:
			lo = le
		default:
			hi = ls
		}
	}
	// lo is a line start (or size); check the line there.
	if lo < size {
		ls, le, lid, err := lineAt(f, lo, size)
		if err != nil {
			return 0, 0, false, err
		}
		if lid == id {
			return ls, le, true, nil
		}
	}
	return lo, lo, false, nil
}

// lineAfter returns the first line starting at or after off: off itself
// when off is 0 or follows a newline.
func lineAfter(f *os.File, off, size int64) (start, end int64, id string, err error) {
	if off > 0 {
		var b [1]byte
		if _, err := f.ReadAt(b[:], off-1); err != nil {
			return 0, 0, "", err
		}
		if b[0] != '\n' {
			nl, err := nextNewline(f, off, size)
			if err != nil {
				return 0, 0, "", err
			}
			off = nl + 1
		}
	}
	if off >= size {
		return size, size, "", nil
	}
	return lineAt(f, off, size)
}

// lineAt reads the id of the line starting at off and where it ends.
func lineAt(f *os.File, off, size int64) (start, end int64, id string, err error) {
	buf := make([]byte, min(256, size-off))
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return 0, 0, "", err
	}
	id, ok := lineID(buf)
	if !ok {
		return 0, 0, "", errNotCanonical
	}
	nl, err := nextNewline(f, off, size)
	if err != nil {
		return 0, 0, "", err
	}
	return off, nl + 1, id, nil
}

// nextNewline returns the offset of the first newline at or after off.
func nextNewline(f *os.File, off, size int64) (int64, error) {
	buf := make([]byte, 4096)
	for off < size {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i), nil
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
		off += int64(n)
	}
	return 0, errNotCanonical // the last line has no newline
}

// lineID reads the id at the start of a canonical record line.
func lineID(line []byte) (string, bool) {
	if !bytes.HasPrefix(line, linePrefix) {
		return "", false
	}
	rest := line[len(linePrefix):]
	end := bytes.IndexByte(rest, '"')
	if end <= 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", false
	}
	return string(rest[:end]), true
}
