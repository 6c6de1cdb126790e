package search

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/racesize"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

func twSearch(t testing.TB, r *workspace.Root, o Options) (map[string]any, []Match) {
	t.Helper()
	out, err := Text(context.Background(), r, o)
	if err != nil {
		t.Fatalf("Text(%+v): %v", o, err)
	}
	res := wstest.Fields(out)
	for _, k := range []string{"query", "matches", "total_matches", "truncated", "warnings"} {
		if _, ok := res[k]; !ok {
			t.Fatalf("field %s missing in %v", k, res)
		}
	}
	if res["warnings"] == nil {
		t.Fatal("warnings is nil")
	}
	ms := res["matches"].([]Match)
	if int64(len(ms)) > res["total_matches"].(int64) {
		t.Fatalf("%d matches but total_matches %v", len(ms), res["total_matches"])
	}
	return res, ms
}

// hits renders matches as path:line:column.
func hits(ms []Match) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s:%d:%d", m.Path, m.Line, m.Column))
	}
	return out
}

func TestSearchMatchFields(t *testing.T) {
	r := twRoot(t, map[string]string{"a.txt": "first line\nthe Needle here, needle again\nlast\n"})
	res, ms := twSearch(t, r, Options{Query: "needle"})
	wstest.Want(t, res, map[string]any{"query": "needle", "total_matches": int64(1), "truncated": false, "warnings": []string{}})
	want := []Match{{Path: "a.txt", Line: 2, Column: 5, Preview: "the Needle here, needle again", Before: []string{}, After: []string{}}}
	if !reflect.DeepEqual(ms, want) {
		t.Errorf("matches %+v, want %+v", ms, want)
	}
	// The JSON has every key, before/after as arrays (the server sorts
	// the keys of what it sends).
	b, _ := json.Marshal(ms[0])
	var got, wantJSON map[string]any
	json.Unmarshal(b, &got)
	json.Unmarshal([]byte(`{"after":[],"before":[],"column":5,"line":2,"path":"a.txt","preview":"the Needle here, needle again"}`), &wantJSON)
	if !reflect.DeepEqual(got, wantJSON) {
		t.Errorf("json %s", b)
	}
	// Case-sensitive: the first exact occurrence gives the column.
	_, ms = twSearch(t, r, Options{Query: "needle", CaseSensitive: true})
	wstest.WantPaths(t, hits(ms), []string{"a.txt:2:18"})
	_, ms = twSearch(t, r, Options{Query: "NEEDLE", CaseSensitive: true})
	wstest.WantPaths(t, hits(ms), nil)
}

func TestSearchColumnsAndLines(t *testing.T) {
	r := twRoot(t, map[string]string{
		"utf8.txt": "héllo wörld\n",                        // é is 2 bytes: "wörld" starts at byte 7
		"bom.txt":  "\ufefffoo bar\nbar\n",                 // the BOM is 3 bytes of line 1
		"crlf.txt": "one\r\ntwo foo\r\nfoo\r\n",            // \r is not part of the line
		"last.txt": "x\ny\nfoo at the end without newline", // the final line counts
	})
	_, ms := twSearch(t, r, Options{Query: "wörld", Path: "utf8.txt"})
	wstest.WantPaths(t, hits(ms), []string{"utf8.txt:1:8"})
	_, ms = twSearch(t, r, Options{Query: "foo", Path: "bom.txt"})
	wstest.WantPaths(t, hits(ms), []string{"bom.txt:1:4"})
	_, ms = twSearch(t, r, Options{Query: "foo", Path: "crlf.txt"})
	wstest.WantPaths(t, hits(ms), []string{"crlf.txt:2:5", "crlf.txt:3:1"})
	if ms[0].Preview != "two foo" || ms[1].Preview != "foo" {
		t.Errorf("previews keep \\r: %q %q", ms[0].Preview, ms[1].Preview)
	}
	// $ matches before a CRLF; a literal ending in \r never matches at the end.
	_, ms = twSearch(t, r, Options{Query: "foo$", Regex: true, Path: "crlf.txt"})
	wstest.WantPaths(t, hits(ms), []string{"crlf.txt:2:5", "crlf.txt:3:1"})
	_, ms = twSearch(t, r, Options{Query: "foo\r", Path: "crlf.txt"})
	wstest.WantPaths(t, hits(ms), nil)
	_, ms = twSearch(t, r, Options{Query: "end without newline", Path: "last.txt"})
	wstest.WantPaths(t, hits(ms), []string{"last.txt:3:12"})
	// A query spanning lines matches nothing.
	res, ms := twSearch(t, r, Options{Query: "x\ny"})
	wstest.WantPaths(t, hits(ms), nil)
	wstest.Want(t, res, map[string]any{"total_matches": int64(0)})
	_, ms = twSearch(t, r, Options{Query: `x\ny`, Regex: true})
	wstest.WantPaths(t, hits(ms), nil)
}

func TestSearchCaseFolding(t *testing.T) {
	r := twRoot(t, map[string]string{
		"f.txt": "École primaire\n" + // É folds to é
			"the \u212Aelvin scale\n" + // KELVIN SIGN folds to k
			"\u017Fome long s\n" + // LONG S folds to s
			"plain KELVIN\n" +
			"STRASSE\n",
	})
	cases := map[string][]string{
		"école":   {"f.txt:1:1"},
		"ÉCOLE":   {"f.txt:1:1"},
		"kelvin":  {"f.txt:2:5", "f.txt:4:7"},
		"some":    {"f.txt:3:1"},
		"strasse": {"f.txt:5:1"},
	}
	for q, want := range cases {
		_, ms := twSearch(t, r, Options{Query: q})
		if !reflect.DeepEqual(hits(ms), want) {
			t.Errorf("%q: %v, want %v", q, hits(ms), want)
		}
	}
	_, ms := twSearch(t, r, Options{Query: "kelvin", CaseSensitive: true})
	wstest.WantPaths(t, hits(ms), nil)
	_, ms = twSearch(t, r, Options{Query: `k\w+`, Regex: true})
	wstest.WantPaths(t, hits(ms), []string{"f.txt:2:5", "f.txt:4:7"})
}

func TestSearchRegex(t *testing.T) {
	r := twRoot(t, map[string]string{"h.go": "func serveHandler() {}\nfunc ServeHTTP() {}\nvar x = 1\nfunc fooHandler(){}\n"})
	_, ms := twSearch(t, r, Options{Query: `func \w+Handler`, Regex: true})
	wstest.WantPaths(t, hits(ms), []string{"h.go:1:1", "h.go:4:1"})
	_, ms = twSearch(t, r, Options{Query: `^var`, Regex: true})
	wstest.WantPaths(t, hits(ms), []string{"h.go:3:1"})
	_, ms = twSearch(t, r, Options{Query: `\d`, Regex: true})
	wstest.WantPaths(t, hits(ms), []string{"h.go:3:9"})
	_, ms = twSearch(t, r, Options{Query: `SERVE(HTTP|handler)`, Regex: true})
	wstest.WantPaths(t, hits(ms), []string{"h.go:1:6", "h.go:2:6"})
	_, ms = twSearch(t, r, Options{Query: `SERVE(HTTP|handler)`, Regex: true, CaseSensitive: true})
	wstest.WantPaths(t, hits(ms), nil)
	// Regex metacharacters are plain in literal mode.
	_, ms = twSearch(t, r, Options{Query: `(){}`})
	wstest.WantPaths(t, hits(ms), []string{"h.go:4:16"})
	for _, q := range []string{"(", "a[", `\p{Bogus}`, "x{2,1}"} {
		_, err := Text(context.Background(), r, Options{Query: q, Regex: true})
		wstest.Code(t, err, "INVALID_ARGUMENT")
	}
	_, err := Text(context.Background(), r, Options{Query: ""})
	wstest.Code(t, err, "INVALID_ARGUMENT")
}

func TestSearchPreviewCuts(t *testing.T) {
	long := strings.Repeat("a", 300) + "needle" + strings.Repeat("b", 400) // 706 ASCII characters
	wide := strings.Repeat("é", 600) + "needle"                            // 606 characters, 1206 bytes
	r := twRoot(t, map[string]string{"long.txt": long + "\n", "wide.txt": wide + "\n"})
	_, ms := twSearch(t, r, Options{Query: "needle", Path: "long.txt", MaxPreviewBytes: 4096})
	if p := ms[0].Preview; p != long[:500]+previewCutMark {
		t.Errorf("preview %q (%d bytes)", p, len(p))
	}
	_, ms = twSearch(t, r, Options{Query: "needle", Path: "long.txt", MaxPreviewBytes: 100})
	if p := ms[0].Preview; len(p) > 100 || !strings.HasSuffix(p, previewCutMark) || !strings.HasPrefix(long, strings.TrimSuffix(p, previewCutMark)) {
		t.Errorf("preview %q (%d bytes)", p, len(p))
	}
	for _, max := range []int{80, 81, 512, 4096} {
		_, ms = twSearch(t, r, Options{Query: "needle", Path: "wide.txt", MaxPreviewBytes: max})
		p := ms[0].Preview
		if len(p) > max || !utf8.ValidString(p) || !strings.HasSuffix(p, previewCutMark) || utf8.RuneCountInString(strings.TrimSuffix(p, previewCutMark)) > 500 {
			t.Errorf("max %d: preview of %d bytes, valid %v: %q", max, len(p), utf8.ValidString(p), p)
		}
	}
	// A line that fits is whole.
	r2 := twRoot(t, map[string]string{"s.txt": strings.Repeat("x", 80) + "needle\n"})
	_, ms = twSearch(t, r2, Options{Query: "needle", MaxPreviewBytes: 86})
	if ms[0].Preview != strings.Repeat("x", 80)+"needle" {
		t.Errorf("preview %q", ms[0].Preview)
	}
}

func TestSearchContext(t *testing.T) {
	r := twRoot(t, map[string]string{"c.txt": "l1\nl2 hit\nl3\nl4\r\nl5\nl6 hit\nl7\n"})
	_, ms := twSearch(t, r, Options{Query: "hit", ContextLines: 2})
	if len(ms) != 2 {
		t.Fatalf("matches %v", hits(ms))
	}
	if !reflect.DeepEqual(ms[0].Before, []string{"l1"}) || !reflect.DeepEqual(ms[0].After, []string{"l3", "l4"}) {
		t.Errorf("first: before %q after %q", ms[0].Before, ms[0].After)
	}
	if !reflect.DeepEqual(ms[1].Before, []string{"l4", "l5"}) || !reflect.DeepEqual(ms[1].After, []string{"l7"}) {
		t.Errorf("second: before %q after %q", ms[1].Before, ms[1].After)
	}
	_, ms = twSearch(t, r, Options{Query: "hit", ContextLines: 5})
	if !reflect.DeepEqual(ms[1].Before, []string{"l1", "l2 hit", "l3", "l4", "l5"}) || !reflect.DeepEqual(ms[1].After, []string{"l7"}) {
		t.Errorf("second: before %q after %q", ms[1].Before, ms[1].After)
	}
	// Context lines are capped like previews.
	r2 := twRoot(t, map[string]string{"w.txt": strings.Repeat("z", 1000) + "\nhit\n"})
	_, ms = twSearch(t, r2, Options{Query: "hit", ContextLines: 1, MaxPreviewBytes: 80})
	if b := ms[0].Before[0]; len(b) > 80 || !strings.HasSuffix(b, previewCutMark) {
		t.Errorf("before %q", b)
	}
}

// TestSearchWindows searches files larger than the window in line-aligned
// pieces: line numbers, context across window edges, validity of the
// whole file, and lines longer than a window.
func TestSearchWindows(t *testing.T) {
	wstest.Set(t, &searchWindow, 64)
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		if i%37 == 0 {
			fmt.Fprintf(&b, "line %03d MARK\n", i)
		} else {
			fmt.Fprintf(&b, "line %03d\n", i)
		}
	}
	text := b.String()
	r := twRoot(t, map[string]string{
		"big.txt":      text,
		"badtail.txt":  text + "\xff\n",
		"longline.txt": "short\n" + strings.Repeat("y", 1000) + "MARK" + strings.Repeat("y", 1000) + "\nMARK after\n",
	})
	_, ms := twSearch(t, r, Options{Query: "mark", Path: "big.txt", ContextLines: 3})
	wstest.WantPaths(t, hits(ms), []string{"big.txt:37:10", "big.txt:74:10", "big.txt:111:10", "big.txt:148:10", "big.txt:185:10"})
	for _, m := range ms {
		want := func(from, to int) []string {
			out := []string{}
			for i := from; i <= to; i++ {
				out = append(out, fmt.Sprintf("line %03d", i))
			}
			return out
		}
		if !reflect.DeepEqual(m.Before, want(m.Line-3, m.Line-1)) || !reflect.DeepEqual(m.After, want(m.Line+1, m.Line+3)) {
			t.Errorf("line %d: before %q after %q", m.Line, m.Before, m.After)
		}
	}
	_, ms = twSearch(t, r, Options{Query: "mark", Path: "badtail.txt"})
	wstest.WantPaths(t, hits(ms), nil)
	_, ms = twSearch(t, r, Options{Query: "mark", Path: "longline.txt", ContextLines: 1})
	wstest.WantPaths(t, hits(ms), []string{"longline.txt:2:1001", "longline.txt:3:1"})
	if ms[1].Before[0] != strings.Repeat("y", searchDefaultPreview-len(previewCutMark))+previewCutMark {
		t.Errorf("before %q", ms[1].Before[0])
	}
	// A line longer than the limit skips the file with a warning.
	wstest.Set(t, &searchMaxLine, 512)
	res, ms := twSearch(t, r, Options{Query: "mark", Path: "longline.txt"})
	wstest.WantPaths(t, hits(ms), nil)
	if ws := res["warnings"].([]string); len(ws) != 1 || !strings.Contains(ws[0], "line longer") {
		t.Errorf("warnings %v", ws)
	}
}

func TestSearchLimitAndOrder(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("d%d/f%02d.txt", i%3, i)] = "hit one\nnothing\nhit two\nhit three\n"
	}
	files["a-b.txt"] = "hit\n" // sorts before "a/..." in path order
	files["a/x.txt"] = "hit\n"
	r := twRoot(t, files)
	res, ms := twSearch(t, r, Options{Query: "hit", MaxResults: 10})
	wstest.Want(t, res, map[string]any{"total_matches": int64(182), "truncated": true})
	wstest.WantPaths(t, hits(ms), []string{"a-b.txt:1:1", "a/x.txt:1:1", "d0/f00.txt:1:1", "d0/f00.txt:3:1", "d0/f00.txt:4:1",
		"d0/f03.txt:1:1", "d0/f03.txt:3:1", "d0/f03.txt:4:1", "d0/f06.txt:1:1", "d0/f06.txt:3:1"})
	if ws := res["warnings"].([]string); len(ws) != 1 || !strings.Contains(ws[0], "result limit reached") {
		t.Errorf("warnings %v", ws)
	}
	// The same, whatever the number of workers.
	for _, n := range []int{1, 3, 8} {
		wstest.Set(t, &searchWorkers, n)
		_, ms2 := twSearch(t, r, Options{Query: "hit", MaxResults: 10})
		if !reflect.DeepEqual(hits(ms2), hits(ms)) {
			t.Errorf("%d workers: %v", n, hits(ms2))
		}
	}
	res, ms = twSearch(t, r, Options{Query: "hit", MaxResults: 182})
	wstest.Want(t, res, map[string]any{"truncated": false, "warnings": []string{}})
	if len(ms) != 182 {
		t.Errorf("%d matches", len(ms))
	}
	res, _ = twSearch(t, r, Options{Query: "hit", MaxResults: 1})
	wstest.Want(t, res, map[string]any{"total_matches": int64(182), "truncated": true})
}

func TestSearchSkips(t *testing.T) {
	r := twRoot(t, map[string]string{
		"text.txt":                "needle\n",
		"bin.dat":                 "needle\x00\n",
		"latin1.txt":              "needle caf\xe9\n",
		".hidden.txt":             "needle\n",
		".hiddendir/a.txt":        "needle\n",
		"node_modules/m/index.js": "needle\n",
		"build/out.txt":           "needle\n",
		"__pycache__/x.py":        "needle\n",
		"ignored.log":             "needle\n",
		"logs/a.txt":              "needle\n",
		"tracked.log":             "needle\n",
		".gitignore":              "*.log\nlogs/\n",
		"sub/real.txt":            "needle in sub\n",
	})
	out := wstest.Outside(t, r.Path)
	wstest.Symlink(t, r.Path, "link-out", filepath.Join(out, "secret.txt"))
	wstest.Symlink(t, r.Path, "link-out-rel", "../outside/secret.txt")
	wstest.Symlink(t, r.Path, "link-out-dir", out)
	wstest.Symlink(t, r.Path, "link-dir-in", "sub")
	wstest.Symlink(t, r.Path, "link-in", "sub/real.txt")
	wstest.Symlink(t, r.Path, "link-hidden", ".hidden.txt")
	testkit.Git(t, r.Path, "init", "-q")
	testkit.Git(t, r.Path, "add", "-f", "tracked.log")
	res, ms := twSearch(t, r, Options{Query: "needle", ContextLines: 2})
	wstest.WantPaths(t, hits(ms), []string{"link-in:1:1", "sub/real.txt:1:1", "text.txt:1:1", "tracked.log:1:1"})
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), "TOPSECRET") {
		t.Errorf("content from outside the workspace: %s", b)
	}
	// Searching a directory or file behind an escaping link is refused.
	for _, p := range []string{"link-out", "link-out-dir", "link-out-dir/sub", "link-out-rel"} {
		_, err := Text(context.Background(), r, Options{Query: "needle", Path: p})
		wstest.Code(t, err, "SYMLINK_ESCAPE")
	}
	// A file named explicitly is searched though hidden or ignored; a
	// binary or non-UTF-8 one is skipped with a warning.
	_, ms = twSearch(t, r, Options{Query: "needle", Path: ".hidden.txt"})
	wstest.WantPaths(t, hits(ms), []string{".hidden.txt:1:1"})
	_, ms = twSearch(t, r, Options{Query: "needle", Path: "ignored.log"})
	wstest.WantPaths(t, hits(ms), []string{"ignored.log:1:1"})
	for p, w := range map[string]string{"bin.dat": "binary", "latin1.txt": "UTF-8"} {
		res, ms = twSearch(t, r, Options{Query: "needle", Path: p})
		if ws := res["warnings"].([]string); len(ms) != 0 || len(ws) != 1 || !strings.Contains(ws[0], w) {
			t.Errorf("%s: %v %v", p, hits(ms), ws)
		}
	}
	// A named directory: filters apply below it.
	_, ms = twSearch(t, r, Options{Query: "needle", Path: "node_modules"})
	wstest.WantPaths(t, hits(ms), []string{"node_modules/m/index.js:1:1"})
	_, ms = twSearch(t, r, Options{Query: "needle", Path: ".hiddendir"})
	wstest.WantPaths(t, hits(ms), []string{".hiddendir/a.txt:1:1"})
}

func TestSearchGlobs(t *testing.T) {
	r := twRoot(t, map[string]string{"a.go": "x\n", "a_test.go": "x\n", "doc.md": "x\n", "vendor/v.go": "x\n", "src/b.go": "x\n"})
	_, ms := twSearch(t, r, Options{Query: "x", Include: []string{"*.go"}})
	wstest.WantPaths(t, hits(ms), []string{"a.go:1:1", "a_test.go:1:1", "src/b.go:1:1", "vendor/v.go:1:1"})
	_, ms = twSearch(t, r, Options{Query: "x", Include: []string{"*.go"}, Exclude: []string{"*_test.go", "vendor"}})
	wstest.WantPaths(t, hits(ms), []string{"a.go:1:1", "src/b.go:1:1"})
	_, ms = twSearch(t, r, Options{Query: "x", Include: []string{"src/*.go", "*.md"}})
	wstest.WantPaths(t, hits(ms), []string{"doc.md:1:1", "src/b.go:1:1"})
	_, ms = twSearch(t, r, Options{Query: "x", Path: "a.go", Exclude: []string{"*.go"}})
	wstest.WantPaths(t, hits(ms), nil)
	_, err := Text(context.Background(), r, Options{Query: "x", Include: []string{"[z-"}})
	wstest.Code(t, err, "INVALID_ARGUMENT")
}

func TestSearchPathErrors(t *testing.T) {
	r := twRoot(t, map[string]string{"f.txt": "x\n"})
	for p, code := range map[string]string{"missing": "NOT_FOUND", "/etc": "ABSOLUTE_PATH_DENIED", "../x": "PATH_OUTSIDE_WORKSPACE", "\x00": "INVALID_ARGUMENT"} {
		_, err := Text(context.Background(), r, Options{Query: "x", Path: p})
		wstest.Code(t, err, code)
	}
}

func TestSearchBudget(t *testing.T) {
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("f%02d.txt", i)] = "hit\n"
	}
	r := twRoot(t, files)
	wstest.Set(t, &searchBudget, time.Nanosecond)
	res, _ := twSearch(t, r, Options{Query: "hit"})
	wstest.Want(t, res, map[string]any{"truncated": true})
	if ws := res["warnings"].([]string); len(ws) == 0 || !strings.Contains(ws[len(ws)-1], "time limit") {
		t.Errorf("warnings %v", ws)
	}
}

// TestSearchHugeDirectory searches a directory of 100,000 empty files;
// BenchmarkSearchHugeDirectory times it.
func TestSearchHugeDirectory(t *testing.T) {
	r := twRoot(t, nil)
	wstest.HugeDir(t, r.Path, racesize.Of(100_000, 20_000))
	res, err := Text(context.Background(), r, Options{Query: "x", Path: "big"})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalMatches != 0 || res.Truncated {
		t.Errorf("search: %d matches, truncated %v", res.TotalMatches, res.Truncated)
	}
}

func BenchmarkSearchHugeDirectory(b *testing.B) {
	r := twRoot(b, nil)
	wstest.HugeDir(b, r.Path, 100_000)
	for b.Loop() {
		if _, err := Text(context.Background(), r, Options{Query: "x", Path: "big"}); err != nil {
			b.Fatal(err)
		}
	}
}

// twRoot opens a workspace holding files (wstest.Tree).
func twRoot(t testing.TB, files map[string]string) *workspace.Root {
	return wstest.Root(t, files, workspace.Open)
}
