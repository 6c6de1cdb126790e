package patch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/workspace"
)

// ws is a temporary workspace for one test.
type ws struct {
	t    *testing.T
	dir  string
	root *workspace.Root
}

func newWS(t *testing.T) *ws {
	t.Helper()
	dir := t.TempDir()
	r, err := workspace.Open(dir)
	if err != nil {
		t.Fatalf("open workspace: %v", err)
	}
	t.Cleanup(func() { r.FS.Close() })
	return &ws{t: t, dir: r.Path, root: r}
}

func (w *ws) abs(rel string) string { return filepath.Join(w.dir, filepath.FromSlash(rel)) }

func (w *ws) write(rel, content string) {
	w.t.Helper()
	p := w.abs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *ws) read(rel string) string {
	w.t.Helper()
	b, err := os.ReadFile(w.abs(rel))
	if err != nil {
		w.t.Fatalf("read %s: %v", rel, err)
	}
	return string(b)
}

func (w *ws) exists(rel string) bool {
	_, err := os.Lstat(w.abs(rel))
	return err == nil
}

func (w *ws) symlink(target, rel string) {
	w.t.Helper()
	if err := os.Symlink(target, w.abs(rel)); err != nil {
		w.t.Fatal(err)
	}
}

// snapshot describes every entry of a directory tree: content and mode of
// files, directories, link targets.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, _ := os.Readlink(p)
			out[rel] = "link:" + t
		case fi.IsDir():
			out[rel] = fmt.Sprintf("dir %v", fi.Mode().Perm())
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("file %v %q", fi.Mode(), b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t testing.TB, before, after map[string]string) {
	t.Helper()
	if reflect.DeepEqual(before, after) {
		return
	}
	var diff []string
	for k, v := range before {
		if after[k] != v {
			diff = append(diff, fmt.Sprintf("%s: %s -> %s", k, v, after[k]))
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			diff = append(diff, fmt.Sprintf("%s: created %s", k, v))
		}
	}
	sort.Strings(diff)
	t.Fatalf("the workspace changed:\n%s", strings.Join(diff, "\n"))
}

// env wraps operation lines in the envelope.
func env(lines ...string) string {
	return "*** Begin Patch\n" + strings.Join(lines, "\n") + "\n*** End Patch\n"
}

// asErr asserts a *fault.Error with the profile's code (and category when given).
func asErr(t testing.TB, err error, code workspace.Code) *fault.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s, got success", code)
	}
	var we *fault.Error
	if !errors.As(err, &we) {
		t.Fatalf("want *fault.Error %s, got %T %v", code, err, err)
	}
	if workspace.Code(we.Reason) != code {
		t.Fatalf("want %s, got %s: %s (details %v)", code, we.Reason, we.Msg, we.Details)
	}
	if we.Details == nil {
		t.Fatalf("details must be an object")
	}
	return we
}

func contains(t testing.TB, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Fatalf("%q does not contain %q", s, sub)
	}
}

func warningsOf(t testing.TB, res map[string]any) []string {
	t.Helper()
	w, ok := res["warnings"].([]string)
	if !ok || w == nil {
		t.Fatalf("warnings must be a non-nil []string, got %#v", res["warnings"])
	}
	return w
}
