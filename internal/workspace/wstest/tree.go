package wstest

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
)

// Tree makes a workspace directory, canonical (symlinks of the temporary
// directory resolved) and with a sibling for Outside, holding files: path
// -> content, a path ending in "/" being a directory.
func Tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	Write(t, ws, files)
	return ws
}

// Root opens a Tree of files with open (workspace.Open: this package
// cannot import workspace, whose own tests use it).
func Root[R any](t testing.TB, files map[string]string, open func(string) (R, error)) R {
	t.Helper()
	return Open(t, Tree(t, files), open)
}

// Open opens the workspace dir with open and, when the test ends, closes
// its directory handle (the FS field of a *workspace.Root, found by name
// for the same reason).
func Open[R any](t testing.TB, dir string, open func(string) (R, error)) R {
	t.Helper()
	r, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fs, ok := reflect.ValueOf(r).Elem().FieldByName("FS").Interface().(io.Closer); ok {
		t.Cleanup(func() { fs.Close() })
	}
	return r
}

// Write creates files (path -> content; a path ending in "/" is a
// directory) under dir, parents included.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Outside makes a directory next to the workspace ws with secret files
// and returns its path.
func Outside(t testing.TB, ws string) string {
	t.Helper()
	out := filepath.Join(filepath.Dir(ws), "outside")
	Write(t, out, map[string]string{"secret.txt": "TOPSECRET needle\n", "sub/deep.txt": "TOPSECRET needle deep\n"})
	return out
}

// Symlink creates the symlink link (below dir, parents included) to
// target.
func Symlink(t testing.TB, dir, link, target string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(link))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, full); err != nil {
		t.Fatal(err)
	}
}

// Code asserts that err is (or wraps) a *fault.Error with the profile's
// code as its reason and a complete shape (fault code, message, details),
// and returns it. The category is the code's (workspace.Classify).
func Code(t testing.TB, err error, code string) *fault.Error {
	t.Helper()
	var e *fault.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want code %s", err, err, code)
	}
	if e.Reason != code {
		t.Fatalf("code %s (%s), want %s", e.Reason, e.Msg, code)
	}
	if e.Msg == "" || e.Code == "" || e.Details == nil {
		t.Fatalf("incomplete error %+v", e)
	}
	return e
}

// WantPaths compares two lists of paths, nil meaning none.
func WantPaths(t testing.TB, got, want []string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("paths\n got %q\nwant %q", got, want)
	}
}
