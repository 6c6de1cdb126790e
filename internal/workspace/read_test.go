package workspace

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

// twRoot opens a workspace holding files (wstest.Tree).
func twRoot(t testing.TB, files map[string]string) *Root { return wstest.Root(t, files, Open) }

func twRead(t testing.TB, r *Root, path string, start int, end *int, maxBytes int) map[string]any {
	t.Helper()
	res, err := ReadFile(r, path, start, end, maxBytes)
	if err != nil {
		t.Fatalf("ReadFile(%q): %v", path, err)
	}
	return wstest.Fields(res)
}

func intp(n int) *int { return &n }

var readFields = []string{"path", "content", "encoding", "start_line", "end_line", "total_lines", "total_bytes", "bytes_read",
	"truncated", "truncated_by", "output_lines", "output_bytes", "next_start_line", "warnings"}

func TestReadFileAllFields(t *testing.T) {
	r := twRoot(t, map[string]string{"dir/a.txt": "one\ntwo\nthree\n"})
	res := twRead(t, r, "dir/a.txt", 1, nil, 0)
	if len(res) != len(readFields) {
		t.Errorf("fields %v, want exactly %v", res, readFields)
	}
	wstest.Want(t, res, map[string]any{
		"path": "dir/a.txt", "content": "one\ntwo\nthree\n", "encoding": "utf-8", "start_line": 1, "end_line": 3,
		"total_lines": 3, "total_bytes": int64(14), "bytes_read": 14, "truncated": false, "truncated_by": nil,
		"output_lines": 3, "output_bytes": 14, "next_start_line": nil, "warnings": []string{},
	})
	// Through ./ and empty segments the canonical path is reported.
	wstest.Want(t, twRead(t, r, "./dir//a.txt", 1, nil, 0), map[string]any{"path": "dir/a.txt"})
}

func TestReadFileLineModel(t *testing.T) {
	r := twRoot(t, map[string]string{
		"nofinal.txt": "a\nb",
		"empty.txt":   "",
		"crlf.txt":    "one\r\ntwo\r\n",
		"bom.txt":     "\ufeffhello\nworld\n",
		"lonecr.txt":  "a\rb\fc\u2028d\n",
		"blank.txt":   "\n\n\n",
	})
	wstest.Want(t, twRead(t, r, "nofinal.txt", 1, nil, 0), map[string]any{"content": "a\nb", "total_lines": 2, "end_line": 2, "output_lines": 2})
	wstest.Want(t, twRead(t, r, "empty.txt", 1, nil, 0), map[string]any{
		"content": "", "total_lines": 0, "total_bytes": int64(0), "start_line": 1, "end_line": 0, "output_lines": 0,
		"truncated": false, "truncated_by": nil, "next_start_line": nil,
	})
	wstest.Want(t, twRead(t, r, "crlf.txt", 2, nil, 0), map[string]any{"content": "two\r\n", "total_lines": 2, "start_line": 2, "end_line": 2})
	wstest.Want(t, twRead(t, r, "bom.txt", 1, intp(1), 0), map[string]any{"content": "\ufeffhello\n", "bytes_read": 9, "total_lines": 2})
	wstest.Want(t, twRead(t, r, "lonecr.txt", 1, nil, 0), map[string]any{"total_lines": 1, "content": "a\rb\fc\u2028d\n"})
	wstest.Want(t, twRead(t, r, "blank.txt", 2, intp(2), 0), map[string]any{"content": "\n", "total_lines": 3, "end_line": 2})
}

func TestReadFileRanges(t *testing.T) {
	r := twRoot(t, map[string]string{"f.txt": "1\n2\n3\n4\n5\n"})
	wstest.Want(t, twRead(t, r, "f.txt", 2, intp(3), 0), map[string]any{"content": "2\n3\n", "start_line": 2, "end_line": 3, "output_lines": 2, "truncated": false, "next_start_line": nil})
	wstest.Want(t, twRead(t, r, "f.txt", 4, intp(99), 0), map[string]any{"content": "4\n5\n", "end_line": 5})
	// Past the end: empty, not an error, not truncated.
	wstest.Want(t, twRead(t, r, "f.txt", 9, nil, 0), map[string]any{"content": "", "start_line": 9, "end_line": 5, "output_lines": 0, "truncated": false, "truncated_by": nil, "next_start_line": nil})
	wstest.Want(t, twRead(t, r, "f.txt", 9, intp(12), 0), map[string]any{"content": "", "end_line": 5})
	// end before start: empty; end_line reports the requested end.
	wstest.Want(t, twRead(t, r, "f.txt", 4, intp(2), 0), map[string]any{"content": "", "start_line": 4, "end_line": 2, "truncated": false})
	// start_line 0 from a direct caller means 1.
	wstest.Want(t, twRead(t, r, "f.txt", 0, intp(1), 0), map[string]any{"content": "1\n", "start_line": 1})
}

func TestReadFileLineCap(t *testing.T) {
	var b strings.Builder
	for i := range 2500 {
		b.WriteString(strings.Repeat("x", i%7) + "\n")
	}
	r := twRoot(t, map[string]string{"long.txt": b.String(), "exact.txt": strings.Repeat("y\n", 2000)})
	res := twRead(t, r, "long.txt", 1, nil, 1<<20)
	wstest.Want(t, res, map[string]any{"output_lines": 2000, "end_line": 2000, "truncated": true, "truncated_by": "lines", "next_start_line": 2001, "total_lines": 2500})
	if ws := res["warnings"].([]string); len(ws) != 1 || !strings.Contains(ws[0], "truncated") {
		t.Errorf("warnings %v", ws)
	}
	wstest.Want(t, twRead(t, r, "long.txt", 2001, nil, 1<<20), map[string]any{"output_lines": 500, "end_line": 2500, "truncated": false, "next_start_line": nil})
	// Exactly 2000 lines: nothing left out.
	wstest.Want(t, twRead(t, r, "exact.txt", 1, nil, 1<<20), map[string]any{"output_lines": 2000, "truncated": false, "truncated_by": nil})
	// The cap applies from start_line, and within end_line.
	wstest.Want(t, twRead(t, r, "long.txt", 100, intp(2099), 1<<20), map[string]any{"output_lines": 2000, "truncated": false})
	wstest.Want(t, twRead(t, r, "long.txt", 100, intp(2100), 1<<20), map[string]any{"output_lines": 2000, "truncated": true, "next_start_line": 2100})
}

func TestReadFileByteCap(t *testing.T) {
	r := twRoot(t, map[string]string{"f.txt": "123456789\nabcdefghi\nABCDEFGHI\n"}) // 10-byte lines
	res := twRead(t, r, "f.txt", 1, nil, 25)
	wstest.Want(t, res, map[string]any{"content": "123456789\nabcdefghi\n", "output_lines": 2, "output_bytes": 20, "bytes_read": 20,
		"end_line": 2, "truncated": true, "truncated_by": "bytes", "next_start_line": 3, "total_bytes": int64(30), "total_lines": 3})
	if ws := res["warnings"].([]string); len(ws) != 1 || !strings.Contains(ws[0], "truncated") {
		t.Errorf("warnings %v", ws)
	}
	// Lines that fit exactly are kept whole.
	wstest.Want(t, twRead(t, r, "f.txt", 1, nil, 20), map[string]any{"output_lines": 2, "truncated": true})
	wstest.Want(t, twRead(t, r, "f.txt", 1, nil, 30), map[string]any{"output_lines": 3, "truncated": false, "truncated_by": nil})
	// Stopping at the last selected line is no truncation.
	wstest.Want(t, twRead(t, r, "f.txt", 1, intp(2), 20), map[string]any{"output_lines": 2, "truncated": false})
}

func TestReadFileFirstLineOverLimit(t *testing.T) {
	line := strings.Repeat("é", 100) // 200 bytes
	r := twRoot(t, map[string]string{"wide.txt": line + "\nnext\n", "single.txt": line})
	res := twRead(t, r, "wide.txt", 1, nil, 11)
	content := res["content"].(string)
	if content != strings.Repeat("é", 5) || !utf8.ValidString(content) {
		t.Errorf("content %q, want the 10-byte UTF-8-safe prefix", content)
	}
	wstest.Want(t, res, map[string]any{"output_lines": 1, "output_bytes": 10, "end_line": 1, "truncated": true, "truncated_by": "bytes", "next_start_line": 2})
	ws := res["warnings"].([]string)
	if len(ws) != 2 || !strings.Contains(ws[0], "first line exceeds") {
		t.Errorf("warnings %v", ws)
	}
	// A single-line file: nothing follows.
	wstest.Want(t, twRead(t, r, "single.txt", 1, nil, 11), map[string]any{"output_lines": 1, "truncated": true, "next_start_line": nil})
	// From a later start line too.
	wstest.Want(t, twRead(t, r, "wide.txt", 2, nil, 2), map[string]any{"content": "ne", "truncated_by": "bytes", "next_start_line": nil})
}

func TestReadFileBinary(t *testing.T) {
	late := strings.Repeat("a", 5000) + "\x00tail\n"
	r := twRoot(t, map[string]string{"bin.dat": "PK\x03\x04\x00\x00rest", "edge.dat": strings.Repeat("b", 4095) + "\x00", "late.txt": late})
	wstest.Code(t, readErr(r, "bin.dat"), "BINARY_FILE")
	wstest.Code(t, readErr(r, "edge.dat"), "BINARY_FILE")
	// A NUL past the first 4096 bytes is text (NUL is valid UTF-8).
	wstest.Want(t, twRead(t, r, "late.txt", 1, nil, 0), map[string]any{"content": late})
}

func readErr(r *Root, p string) error {
	_, err := ReadFile(r, p, 1, nil, 0)
	return err
}

func TestReadFileEncoding(t *testing.T) {
	big := strings.Repeat("valid line\n", 100_000) // > 1 MiB, past any chunk
	// A multi-byte character straddling every chunk boundary is valid.
	straddle := strings.Repeat("€", readChunk) // 3 bytes each: boundaries fall inside runes
	r := twRoot(t, map[string]string{
		"latin1.txt": "caf\xe9\n",
		"late.txt":   big + "bad \xff byte\n",
		"cut.txt":    "ends mid-rune \xe2\x82",
		"over.txt":   "overlong \xc0\xaf\n",
		"sur.txt":    "surrogate \xed\xa0\x80\n",
		"ok.txt":     straddle + "\n",
	})
	for _, p := range []string{"latin1.txt", "late.txt", "cut.txt", "over.txt", "sur.txt"} {
		wstest.Code(t, readErr(r, p), "UNSUPPORTED_ENCODING")
	}
	res := twRead(t, r, "ok.txt", 1, nil, 1<<20)
	wstest.Want(t, res, map[string]any{"total_lines": 1, "total_bytes": int64(len(straddle) + 1), "truncated": false, "content": straddle + "\n"})
}

func TestReadFilePathErrors(t *testing.T) {
	r := twRoot(t, map[string]string{"dir/f.txt": "x\n"})
	out := wstest.Outside(t, r.Path)
	wstest.Symlink(t, r.Path, "out-link", filepath.Join(out, "secret.txt"))
	wstest.Symlink(t, r.Path, "out-rel", "../outside/secret.txt")
	wstest.Symlink(t, r.Path, "out-dir", out)
	wstest.Symlink(t, r.Path, "in-link", "dir/f.txt")
	cases := map[string]string{
		"":                 "INVALID_ARGUMENT",
		"a\x00b":           "INVALID_ARGUMENT",
		"/etc/passwd":      "ABSOLUTE_PATH_DENIED",
		"C:/x":             "ABSOLUTE_PATH_DENIED",
		"../x":             "PATH_OUTSIDE_WORKSPACE",
		"dir/../f":         "PATH_OUTSIDE_WORKSPACE",
		"missing.txt":      "NOT_FOUND",
		"out-link":         "SYMLINK_ESCAPE",
		"out-rel":          "SYMLINK_ESCAPE",
		"out-dir/sub/x":    "SYMLINK_ESCAPE",
		"dir":              "IS_DIRECTORY",
		".":                "IS_DIRECTORY",
		"out-dir/deep.txt": "SYMLINK_ESCAPE",
	}
	for p, code := range cases {
		wstest.Code(t, readErr(r, p), code)
	}
	// A symlink inside reads its target, reported by its canonical path.
	wstest.Want(t, twRead(t, r, "in-link", 1, nil, 0), map[string]any{"path": "dir/f.txt", "content": "x\n"})
}

func TestReadFileFIFO(t *testing.T) {
	r := twRoot(t, map[string]string{})
	if err := syscall.Mkfifo(r.Join("pipe"), 0o644); err != nil {
		t.Fatal("mkfifo:", err)
	}
	wstest.Code(t, readErr(r, "pipe"), "INVALID_ARGUMENT") // and it does not hang
}

// TestReadFileHugeStreams reads the head of a 64 MiB file: all of it is
// scanned for the totals, but memory stays near max_bytes.
func TestReadFileHugeStreams(t *testing.T) {
	r := twRoot(t, map[string]string{})
	line := strings.Repeat("z", 63) + "\n"
	block := bytes.Repeat([]byte(line), 1<<14) // 1 MiB
	f, err := os.Create(r.Join("huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for range 64 {
		f.Write(block)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := twRead(t, r, "huge.txt", 10, intp(20), 0)
	runtime.ReadMemStats(&after)
	wstest.Want(t, res, map[string]any{"total_lines": 1 << 20, "total_bytes": int64(64 << 20), "output_lines": 11, "end_line": 20, "truncated": false})
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("allocated %d bytes reading the head of a 64 MiB file", alloc)
	}
	// The default max_bytes head: whole lines, truncated by bytes.
	wstest.Want(t, twRead(t, r, "huge.txt", 1, nil, 0), map[string]any{"output_bytes": 128000, "output_lines": 2000, "truncated_by": "lines"})
}
