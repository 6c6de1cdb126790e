package patch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

const absent = "\x00absent"

type applyCase struct {
	name  string
	files map[string]string
	setup func(w *ws)
	patch string

	// success
	want     map[string]string // content after the commit, or absent
	summary  string
	affected []AffectedFile
	relaxed  bool     // clean must be false
	warn     []string // each must appear in some warning

	// failure
	code     workspace.Code
	msg      string
	details  map[string]any // expected subset of error details
	category workspace.Category
}

func runApply(t *testing.T, tc applyCase) {
	t.Helper()
	w := newWS(t)
	for rel, c := range tc.files {
		w.write(rel, c)
	}
	if tc.setup != nil {
		tc.setup(w)
	}
	before := snapshot(t, w.dir)
	p := NewPatcher()

	dryR, derr := p.Apply(w.root, tc.patch, true)
	sameSnapshot(t, before, snapshot(t, w.dir))
	resR, err := p.Apply(w.root, tc.patch, false)

	if tc.code != "" {
		for _, e := range []error{derr, err} {
			we := asErr(t, e, tc.code)
			if tc.msg != "" {
				contains(t, we.Msg, tc.msg)
			}
			for k, v := range tc.details {
				if !reflect.DeepEqual(we.Details[k], v) {
					t.Fatalf("details[%s] = %#v, want %#v (message %q)", k, we.Details[k], v, we.Msg)
				}
			}
			if tc.category != "" && workspace.Classify(we).Category != tc.category {
				t.Fatalf("category %s, want %s", workspace.Classify(we).Category, tc.category)
			}
		}
		if dryR != nil || resR != nil {
			t.Fatalf("a failure returns no fields")
		}
		sameSnapshot(t, before, snapshot(t, w.dir))
		if len(p.Originals()) != 0 {
			t.Fatalf("a failed patch recorded originals")
		}
		return
	}
	if derr != nil {
		t.Fatalf("dry run: %v", derr)
	}
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	dry, res := wstest.Fields(dryR), wstest.Fields(resR)
	checkShape(t, res, false)
	checkShape(t, dry, true)
	for _, k := range []string{"clean", "summary", "affected_files", "warnings"} {
		if !reflect.DeepEqual(dry[k], res[k]) {
			t.Fatalf("dry run and commit differ on %s: %#v vs %#v", k, dry[k], res[k])
		}
	}
	if tc.summary != "" && res["summary"] != tc.summary {
		t.Fatalf("summary %q, want %q", res["summary"], tc.summary)
	}
	if tc.affected != nil {
		got := res["affected_files"].([]AffectedFile)
		if len(got) != len(tc.affected) {
			t.Fatalf("affected_files %v, want %v", got, tc.affected)
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], tc.affected[i]) {
				t.Fatalf("affected_files[%d] = %v, want %v", i, got[i], tc.affected[i])
			}
		}
	}
	warnings := warningsOf(t, res)
	if res["clean"] != !tc.relaxed {
		t.Fatalf("clean = %v, want %v (warnings %q)", res["clean"], !tc.relaxed, warnings)
	}
	if !tc.relaxed && len(warnings) != 0 {
		t.Fatalf("unexpected warnings %q", warnings)
	}
	for _, want := range tc.warn {
		found := false
		for _, w := range warnings {
			found = found || strings.Contains(w, want)
		}
		if !found {
			t.Fatalf("no warning contains %q: %q", want, warnings)
		}
	}
	for rel, want := range tc.want {
		if want == absent {
			if w.exists(rel) {
				t.Fatalf("%s still exists", rel)
			}
			continue
		}
		if got := w.read(rel); got != want {
			t.Fatalf("%s = %q, want %q", rel, got, want)
		}
	}
	// No temp file is left behind.
	for k := range snapshot(t, w.dir) {
		if strings.Contains(k, ".patch-tmp") {
			t.Fatalf("temp file left: %s", k)
		}
	}
}

func checkShape(t *testing.T, res map[string]any, dryRun bool) {
	t.Helper()
	keys := []string{}
	for k := range res {
		keys = append(keys, k)
	}
	if len(res) != 5 {
		t.Fatalf("result keys %v", keys)
	}
	if res["dry_run"] != dryRun {
		t.Fatalf("dry_run = %v", res["dry_run"])
	}
	if _, ok := res["clean"].(bool); !ok {
		t.Fatalf("clean %#v", res["clean"])
	}
	if _, ok := res["summary"].(string); !ok {
		t.Fatalf("summary %#v", res["summary"])
	}
	if _, ok := res["affected_files"].([]AffectedFile); !ok {
		t.Fatalf("affected_files %#v", res["affected_files"])
	}
	warningsOf(t, res)
	b, err := json.Marshal(res)
	if err != nil || !strings.Contains(string(b), `"warnings":[`) {
		t.Fatalf("json %s %v", b, err)
	}
}

func aff(path, op string, old ...string) AffectedFile {
	f := AffectedFile{Path: path, Operation: op}
	if len(old) > 0 {
		f.OldPath = old[0]
	}
	return f
}

func TestApplyAddDeleteMove(t *testing.T) {
	cases := []applyCase{
		{name: "add", patch: env("*** Add File: a.txt", "+x", "+", "+y"),
			want: map[string]string{"a.txt": "x\n\ny\n"}, summary: "A a.txt", affected: []AffectedFile{aff("a.txt", "add")}},
		{name: "add empty file", patch: env("*** Add File: e"), want: map[string]string{"e": ""}},
		{name: "add creates parents", patch: env("*** Add File: d/e/f.txt", "+x"),
			want: map[string]string{"d/e/f.txt": "x\n"}},
		{name: "add path is normalised", patch: env("*** Add File: ./d//f.txt", "+x"),
			want: map[string]string{"d/f.txt": "x\n"}, summary: "A d/f.txt"},
		{name: "add through a symlinked directory inside", setup: func(w *ws) {
			os.Mkdir(w.abs("real"), 0o755)
			w.symlink("real", "ln")
		}, patch: env("*** Add File: ln/n.txt", "+x"), want: map[string]string{"real/n.txt": "x\n"}},
		{name: "add with a CRLF patch writes LF", patch: "*** Begin Patch\r\n*** Add File: c\r\n+a\r\n+b\r\n*** End Patch\r\n",
			want: map[string]string{"c": "a\nb\n"}},
		{name: "delete", files: map[string]string{"d.txt": "x\n"}, patch: env("*** Delete File: d.txt"),
			want: map[string]string{"d.txt": absent}, summary: "D d.txt", affected: []AffectedFile{aff("d.txt", "delete")}},
		{name: "move", files: map[string]string{"a.txt": "one\ntwo\n"},
			patch: env("*** Update File: a.txt", "*** Move to: sub/b.txt", "@@", " one", "-two", "+2"),
			want:  map[string]string{"a.txt": absent, "sub/b.txt": "one\n2\n"}, summary: "R a.txt -> sub/b.txt",
			affected: []AffectedFile{aff("sub/b.txt", "move", "a.txt")}},
		{name: "move only", files: map[string]string{"a": "x"}, patch: env("*** Update File: a", "*** Move to: b"),
			want: map[string]string{"a": absent, "b": "x"}},
		{name: "move onto itself is an update", files: map[string]string{"a": "x\n"},
			patch: env("*** Update File: a", "*** Move to: ./a", "-x", "+y"),
			want:  map[string]string{"a": "y\n"}, summary: "M a", affected: []AffectedFile{aff("a", "update")}},
		{name: "every operation at once", files: map[string]string{"u": "1\n", "d": "x\n", "m": "m\n"},
			patch: env("*** Add File: n", "+new", "*** Update File: u", "-1", "+one", "*** Delete File: d",
				"*** Update File: m", "*** Move to: moved/m"),
			want:    map[string]string{"n": "new\n", "u": "one\n", "d": absent, "m": absent, "moved/m": "m\n"},
			summary: "A n\nM u\nD d\nR m -> moved/m",
			affected: []AffectedFile{aff("n", "add"), aff("u", "update"), aff("d", "delete"),
				aff("moved/m", "move", "m")}},
		{name: "repeated updates apply in order", files: map[string]string{"a": "a\n"},
			patch: env("*** Update File: a", "-a", "+b", "*** Update File: a", "-b", "+c"),
			want:  map[string]string{"a": "c\n"}, summary: "M a\nM a"},
		{name: "update then move of the same file", files: map[string]string{"a": "a\n"},
			patch: env("*** Update File: a", "-a", "+b", "*** Update File: a", "*** Move to: z", "-b", "+c"),
			want:  map[string]string{"a": absent, "z": "c\n"}},

		// failures
		{name: "add existing file", files: map[string]string{"a": "x"}, patch: env("*** Add File: a", "+y"),
			code: "PATCH_FAILED", msg: "cannot add an existing file"},
		{name: "add over a directory", setup: func(w *ws) { os.Mkdir(w.abs("d"), 0o755) },
			patch: env("*** Add File: d", "+y"), code: "PATCH_FAILED", msg: "directory"},
		{name: "add over a symlink", files: map[string]string{"t": "x"}, setup: func(w *ws) { w.symlink("t", "l") },
			patch: env("*** Add File: l", "+y"), code: "SYMLINK_ESCAPE", msg: "writing through symlinks is denied"},
		{name: "add over a dangling symlink", setup: func(w *ws) { w.symlink("nowhere", "l") },
			patch: env("*** Add File: l", "+y"), code: "SYMLINK_ESCAPE"},
		{name: "add under a file", files: map[string]string{"f": "x"}, patch: env("*** Add File: f/g", "+y"),
			code: "PATCH_FAILED", msg: "parent f is a file"},
		{name: "add under a deeper file", files: map[string]string{"d/f": "x"}, patch: env("*** Add File: d/f/g/h", "+y"),
			code: "PATCH_FAILED", msg: "is a file"},
		{name: "absolute path", patch: env("*** Add File: /etc/x", "+y"), code: "ABSOLUTE_PATH_DENIED"},
		{name: "drive path", patch: env("*** Add File: C:/x", "+y"), code: "ABSOLUTE_PATH_DENIED"},
		{name: "dot-dot path", patch: env("*** Add File: ../x", "+y"), code: "PATH_OUTSIDE_WORKSPACE"},
		{name: "inner dot-dot path", patch: env("*** Add File: a/../b", "+y"), code: "PATH_OUTSIDE_WORKSPACE"},
		{name: "empty path", patch: env("*** Add File: ", "+y"), code: "INVALID_ARGUMENT"},
		{name: "the root as a path", patch: env("*** Add File: .", "+y"), code: "INVALID_ARGUMENT"},
		{name: "delete missing", patch: env("*** Delete File: nope"), code: "NOT_FOUND", details: map[string]any{"path": "nope"}},
		{name: "delete directory", setup: func(w *ws) { os.Mkdir(w.abs("d"), 0o755) },
			patch: env("*** Delete File: d"), code: "PATCH_FAILED", msg: "directory"},
		{name: "delete symlink", files: map[string]string{"t": "x"}, setup: func(w *ws) { w.symlink("t", "l") },
			patch: env("*** Delete File: l"), code: "SYMLINK_ESCAPE", msg: "writing through symlinks is denied"},
		{name: "delete missing under a file", files: map[string]string{"f": "x"}, patch: env("*** Delete File: f/g"),
			code: "NOT_FOUND"},
		{name: "move onto an existing file", files: map[string]string{"a": "x", "b": "y"},
			patch: env("*** Update File: a", "*** Move to: b"), code: "PATCH_FAILED", msg: "cannot move a over an existing file"},
		{name: "move onto a directory", files: map[string]string{"a": "x", "d/f": "y"},
			patch: env("*** Update File: a", "*** Move to: d"), code: "PATCH_FAILED", msg: "directory"},
		{name: "move onto a symlink", files: map[string]string{"a": "x", "t": "y"}, setup: func(w *ws) { w.symlink("t", "l") },
			patch: env("*** Update File: a", "*** Move to: l"), code: "SYMLINK_ESCAPE", msg: "writing through symlinks is denied"},
		{name: "move a symlink", files: map[string]string{"t": "y"}, setup: func(w *ws) { w.symlink("t", "l") },
			patch: env("*** Update File: l", "*** Move to: m"), code: "SYMLINK_ESCAPE"},
		{name: "move missing source", patch: env("*** Update File: a", "*** Move to: b"), code: "NOT_FOUND"},
		{name: "move outside", files: map[string]string{"a": "x"},
			patch: env("*** Update File: a", "*** Move to: ../b"), code: "PATH_OUTSIDE_WORKSPACE"},
		{name: "move under a file", files: map[string]string{"a": "x", "f": "y"},
			patch: env("*** Update File: a", "*** Move to: f/b"), code: "PATCH_FAILED", msg: "is a file"},
		{name: "envelope error", patch: "*** Add File: a\n+x\n", code: "PATCH_FAILED", msg: "Begin Patch"},
		{name: "no operations", patch: "*** Begin Patch\n*** End Patch", code: "PATCH_FAILED", msg: "no files were modified"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runApply(t, tc) })
	}
}

func TestApplyOverlappingOperations(t *testing.T) {
	cases := []applyCase{
		{name: "two adds", patch: env("*** Add File: a", "+x", "*** Add File: a", "+y"),
			code: "PATCH_FAILED", msg: "conflicting operations on a", details: map[string]any{"line": 4}},
		{name: "add then update", patch: env("*** Add File: a", "+x", "*** Update File: a", "-x", "+y"),
			code: "PATCH_FAILED", msg: "conflicting operations on a"},
		{name: "update then add", files: map[string]string{"a": "x\n"},
			patch: env("*** Update File: a", "-x", "+y", "*** Add File: a", "+z"),
			code:  "PATCH_FAILED", msg: "conflicting"},
		{name: "update after delete", files: map[string]string{"a": "x\n"},
			patch: env("*** Delete File: a", "*** Update File: a", "-x", "+y"), code: "PATCH_FAILED", msg: "conflicting"},
		{name: "delete after update", files: map[string]string{"a": "x\n"},
			patch: env("*** Update File: a", "-x", "+y", "*** Delete File: a"), code: "PATCH_FAILED", msg: "conflicting"},
		{name: "two deletes", files: map[string]string{"a": "x\n"},
			patch: env("*** Delete File: a", "*** Delete File: a"), code: "PATCH_FAILED", msg: "conflicting"},
		{name: "move destination then added", files: map[string]string{"a": "x\n"},
			patch: env("*** Update File: a", "*** Move to: b", "*** Add File: b", "+y"), code: "PATCH_FAILED", msg: "conflicting operations on b"},
		{name: "added then move destination", files: map[string]string{"a": "x\n"},
			patch: env("*** Add File: b", "+y", "*** Update File: a", "*** Move to: b"), code: "PATCH_FAILED", msg: "conflicting operations on b"},
		{name: "move destination then updated", files: map[string]string{"a": "x\n"},
			patch: env("*** Update File: a", "*** Move to: b", "*** Update File: b", "-x", "+y"), code: "PATCH_FAILED", msg: "conflicting"},
		{name: "two moves to one destination", files: map[string]string{"a": "x\n", "c": "z\n"},
			patch: env("*** Update File: a", "*** Move to: b", "*** Update File: c", "*** Move to: b"), code: "PATCH_FAILED", msg: "conflicting"},
		{name: "update after move away", files: map[string]string{"a": "x\n"},
			patch: env("*** Update File: a", "*** Move to: b", "*** Update File: a", "-x", "+y"), code: "PATCH_FAILED", msg: "conflicting"},
		{name: "move source re-added", files: map[string]string{"a": "x\n"},
			patch: env("*** Update File: a", "*** Move to: b", "*** Add File: a", "+y"), code: "PATCH_FAILED", msg: "conflicting"},
		{name: "add a file where another add needs a directory", patch: env("*** Add File: x/y", "+1", "*** Add File: x", "+2"),
			code: "PATCH_FAILED", msg: "needs it as a directory"},
		{name: "add under a file another add creates", patch: env("*** Add File: x", "+1", "*** Add File: x/y", "+2"),
			code: "PATCH_FAILED", msg: "also creates x as a file"},
		{name: "third operation fails, first two untouched", files: map[string]string{"one": "1\n", "three": "3\n"},
			patch: env("*** Update File: one", "-1", "+uno", "*** Add File: two", "+2", "*** Update File: three", "-nope", "+tres"),
			code:  "PATCH_FAILED", msg: "context did not match in three"},
		{name: "third operation path fails", files: map[string]string{"one": "1\n"},
			patch: env("*** Delete File: one", "*** Add File: d/two", "+2", "*** Delete File: missing"),
			code:  "NOT_FOUND"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runApply(t, tc) })
	}
}

func TestApplyUpdateMatching(t *testing.T) {
	cases := []applyCase{
		{name: "exact", files: map[string]string{"a": "one\ntwo\nthree\n"},
			patch: env("*** Update File: a", "@@", " one", "-two", "+2", " three"),
			want:  map[string]string{"a": "one\n2\nthree\n"}, summary: "M a", affected: []AffectedFile{aff("a", "update")}},
		{name: "level 2 trailing whitespace", files: map[string]string{"a": "one  \ntwo\t\n"},
			patch: env("*** Update File: a", " one", "-two", "+2"),
			want:  map[string]string{"a": "one  \n2\n"}, relaxed: true, warn: []string{"a: chunk 1 matched ignoring trailing whitespace"}},
		{name: "level 3 indentation keeps the file's context text", files: map[string]string{"a": "  if x {\n    y()\n  }\n"},
			patch: env("*** Update File: a", " if x {", "-y()", "+    z()", " }"),
			want:  map[string]string{"a": "  if x {\n    z()\n  }\n"}, relaxed: true, warn: []string{"matched ignoring indentation"}},
		{name: "level 4 punctuation", files: map[string]string{"a": "say \u201Chi\u201D \u2014 ok\nnext\n"},
			patch: env("*** Update File: a", " say \"hi\" - ok", "-next", "+after"),
			want:  map[string]string{"a": "say \u201Chi\u201D \u2014 ok\nafter\n"}, relaxed: true,
			warn: []string{"matched after punctuation normalisation"}},
		{name: "the first level with a candidate decides", files: map[string]string{"a": "foo \nfoo\n"},
			patch: env("*** Update File: a", "-foo", "+bar"), want: map[string]string{"a": "foo \nbar\n"}},
		{name: "ambiguous", files: map[string]string{"a": "x\ny\nx\n"},
			patch: env("*** Update File: a", "-x", "+z"), code: "PATCH_FAILED", msg: "context matched 2 locations in a",
			details: map[string]any{"matches": 2, "path": "a"}},
		{name: "ambiguous at a relaxed level", files: map[string]string{"a": "x \nx\t\nx  \n"},
			patch: env("*** Update File: a", "-x", "+z"), code: "PATCH_FAILED", msg: "matched 3 locations",
			details: map[string]any{"matches": 3}},
		{name: "no match", files: map[string]string{"a": "x\n"},
			patch: env("*** Update File: a", " q", "-x", "+z"), code: "PATCH_FAILED", msg: "context did not match in a",
			details: map[string]any{"path": "a", "expected": []string{"q", "x"}}},
		{name: "retry without a trailing empty context line", files: map[string]string{"a": "a\nb\n"},
			patch: env("*** Update File: a", " a", "-b", "+B", " "), want: map[string]string{"a": "a\nB\n"},
			relaxed: true, warn: []string{"a: chunk 1 matched without its trailing empty context line"}},
		{name: "trailing empty context that matches is kept", files: map[string]string{"a": "b\n\nc\nb\nd\n"},
			patch: env("*** Update File: a", "-b", "+B", " "), want: map[string]string{"a": "B\n\nc\nb\nd\n"}},
		{name: "anchor disambiguates", files: map[string]string{"a": "x\nfunc b\nx\n"},
			patch: env("*** Update File: a", "@@ func b", "-x", "+y"), want: map[string]string{"a": "x\nfunc b\ny\n"}},
		{name: "anchor at a relaxed level", files: map[string]string{"a": "x\n    func b() {\nx\n"},
			patch: env("*** Update File: a", "@@ func b() {", "-x", "+y"), want: map[string]string{"a": "x\n    func b() {\ny\n"},
			relaxed: true, warn: []string{`anchor "func b() {" matched ignoring indentation`}},
		{name: "anchor not found is ignored with a warning", files: map[string]string{"a": "x\ny\n"},
			patch: env("*** Update File: a", "@@ nowhere", "-y", "+z"), want: map[string]string{"a": "x\nz\n"},
			relaxed: true, warn: []string{`anchor "nowhere" not found`}},
		{name: "anchor search starts after the previous chunk", files: map[string]string{"a": "f\n1\nx\nf\nx\n"},
			patch: env("*** Update File: a", " 1", "-x", "+X", "@@ f", "-x", "+Y"), want: map[string]string{"a": "f\n1\nX\nf\nY\n"}},
		{name: "anchor does not limit the window's end", files: map[string]string{"a": "f\nx\ng\nx\n"},
			patch: env("*** Update File: a", "@@ f", "-x", "+y"), code: "PATCH_FAILED", msg: "matched 2 locations"},
		{name: "end of file", files: map[string]string{"a": "x\ny\nx\n"},
			patch: env("*** Update File: a", "-x", "+z", "*** End of File"), want: map[string]string{"a": "x\ny\nz\n"}},
		{name: "end of file must end at the last line", files: map[string]string{"a": "x\ny\n"},
			patch: env("*** Update File: a", "-x", "+z", "*** End of File"), code: "PATCH_FAILED", msg: "context did not match",
			details: map[string]any{"end_of_file": true}},
		{name: "insertion at end of file", files: map[string]string{"a": "x\n"},
			patch: env("*** Update File: a", "@@", "+y"), want: map[string]string{"a": "x\ny\n"}},
		{name: "insertion with end of file marker", files: map[string]string{"a": "x\nq\n"},
			patch: env("*** Update File: a", "@@ x", "+y", "*** End of File"), want: map[string]string{"a": "x\nq\ny\n"}},
		{name: "insertion after the anchor", files: map[string]string{"a": "a\nb\nc\n"},
			patch: env("*** Update File: a", "@@ b", "+ins"), want: map[string]string{"a": "a\nb\nins\nc\n"}},
		{name: "insertion into an empty file adds a final newline", files: map[string]string{"a": ""},
			patch: env("*** Update File: a", "+x", "+y"), want: map[string]string{"a": "x\ny\n"}},
		{name: "insertion before a replaced region", files: map[string]string{"a": "a\nb\nc\n"},
			patch: env("*** Update File: a", "@@ a", "+ins", "@@", "-b", "+B"), want: map[string]string{"a": "a\nins\nB\nc\n"}},
		{name: "several chunks apply bottom-up", files: map[string]string{"a": "1\n2\n3\n4\n5\n"},
			patch: env("*** Update File: a", "@@", "-1", "+one", "+uno", "@@", " 3", "-4", "@@", "-5", "+five"),
			want:  map[string]string{"a": "one\nuno\n2\n3\nfive\n"}},
		{name: "chunks out of order", files: map[string]string{"a": "1\n2\n3\n"},
			patch: env("*** Update File: a", "@@", "-3", "+c", "@@", "-1", "+a"), want: map[string]string{"a": "a\n2\nc\n"}},
		{name: "overlapping hunks", files: map[string]string{"a": "1\n2\n3\n"},
			patch: env("*** Update File: a", "@@", " 1", "-2", "@@", "-2", "+b", " 3"), code: "PATCH_FAILED", msg: "hunks overlap in a",
			details: map[string]any{"chunks": []int{1, 2}}},
		{name: "insertion inside another hunk overlaps", files: map[string]string{"a": "1\n2\n3\n"},
			patch: env("*** Update File: a", "@@ 1", "+x", "@@", "-1", "-2", "+y"), code: "PATCH_FAILED", msg: "overlap"},
		{name: "delete every line", files: map[string]string{"a": "x\ny\n"},
			patch: env("*** Update File: a", "-x", "-y"), want: map[string]string{"a": ""}},
		{name: "BOM preserved", files: map[string]string{"a": bom + "a\nb\n"},
			patch: env("*** Update File: a", " a", "-b", "+B"), want: map[string]string{"a": bom + "a\nB\n"}},
		{name: "BOM on the first line does not hide it", files: map[string]string{"a": bom + "a\nb\n"},
			patch: env("*** Update File: a", "-a", "+A"), want: map[string]string{"a": bom + "A\nb\n"}},
		{name: "CRLF preserved", files: map[string]string{"a": "a\r\nb\r\n"},
			patch: env("*** Update File: a", " a", "-b", "+B", "+new"), want: map[string]string{"a": "a\r\nB\r\nnew\r\n"}},
		{name: "CRLF patch on an LF file", files: map[string]string{"a": "a\nb\n"},
			patch: strings.ReplaceAll(env("*** Update File: a", " a", "-b", "+B"), "\n", "\r\n"), want: map[string]string{"a": "a\nB\n"}},
		{name: "the first line break decides the style", files: map[string]string{"a": "a\r\nb\nc\n"},
			patch: env("*** Update File: a", "-c", "+C"), want: map[string]string{"a": "a\r\nb\r\nC\r\n"}},
		{name: "BOM and CRLF without final newline", files: map[string]string{"a": bom + "a\r\nb"},
			patch: env("*** Update File: a", "-b", "+B"), want: map[string]string{"a": bom + "a\r\nB"}},
		{name: "no final newline kept", files: map[string]string{"a": "a\nb"},
			patch: env("*** Update File: a", " a", "-b", "+B", "+C"), want: map[string]string{"a": "a\nB\nC"}},
		{name: "append to a file without final newline", files: map[string]string{"a": "a"},
			patch: env("*** Update File: a", "@@", "+b"), want: map[string]string{"a": "a\nb"}},
		{name: "lone CR is content", files: map[string]string{"a": "a\rb\nc\n"},
			patch: env("*** Update File: a", " a\rb", "-c", "+C"), want: map[string]string{"a": "a\rb\nC\n"}},
		{name: "empty context line", files: map[string]string{"a": "a\n\nb\n"},
			patch: env("*** Update File: a", " a", "", "-b", "+B"), want: map[string]string{"a": "a\n\nB\n"}},
		{name: "update missing", patch: env("*** Update File: nope", "-x"), code: "NOT_FOUND"},
		{name: "update under missing parent", patch: env("*** Update File: no/pe", "-x"), code: "NOT_FOUND"},
		{name: "update a directory", setup: func(w *ws) { os.Mkdir(w.abs("d"), 0o755) },
			patch: env("*** Update File: d", "-x"), code: "PATCH_FAILED", msg: "directory"},
		{name: "update a symlink inside", files: map[string]string{"t": "x\n"}, setup: func(w *ws) { w.symlink("t", "l") },
			patch: env("*** Update File: l", "-x", "+y"), code: "SYMLINK_ESCAPE", msg: "writing through symlinks is denied",
			details: map[string]any{"path": "l"}},
		{name: "update binary", files: map[string]string{"a": "x\x00y\n"},
			patch: env("*** Update File: a", "-x", "+y"), code: "PATCH_FAILED", msg: "binary"},
		{name: "update invalid UTF-8", files: map[string]string{"a": "x\xff\n"},
			patch: env("*** Update File: a", "-x", "+y"), code: "PATCH_FAILED", msg: "UTF-8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runApply(t, tc) })
	}
}

// outside makes a directory outside the workspace with a file in it.
func outside(t *testing.T) string {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "secret"), []byte("s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestApplySymlinkEscapes(t *testing.T) {
	out := outside(t)
	cases := []applyCase{
		{name: "add under a parent symlink leading outside", setup: func(w *ws) { w.symlink(out, "esc") },
			patch: env("*** Add File: esc/new", "+x"), code: "PATH_OUTSIDE_WORKSPACE"},
		{name: "add deep under a parent symlink leading outside", setup: func(w *ws) { w.symlink(out, "esc") },
			patch: env("*** Add File: esc/a/b/new", "+x"), code: "PATH_OUTSIDE_WORKSPACE"},
		{name: "update through a parent symlink leading outside", setup: func(w *ws) { w.symlink(out, "esc") },
			patch: env("*** Update File: esc/secret", "-s", "+x"), code: "SYMLINK_ESCAPE"},
		{name: "delete through a parent symlink leading outside", setup: func(w *ws) { w.symlink(out, "esc") },
			patch: env("*** Delete File: esc/secret"), code: "SYMLINK_ESCAPE"},
		{name: "update a symlink to an outside file", setup: func(w *ws) { w.symlink(filepath.Join(out, "secret"), "l") },
			patch: env("*** Update File: l", "-s", "+x"), code: "SYMLINK_ESCAPE"},
		{name: "delete a dangling symlink to the outside", setup: func(w *ws) { w.symlink(filepath.Join(out, "none"), "l") },
			patch: env("*** Delete File: l"), code: "SYMLINK_ESCAPE"},
		{name: "move to under a parent symlink leading outside", files: map[string]string{"a": "x"},
			setup: func(w *ws) { w.symlink(out, "esc") },
			patch: env("*** Update File: a", "*** Move to: esc/a"), code: "PATH_OUTSIDE_WORKSPACE"},
		{name: "move onto a symlink to the outside", files: map[string]string{"a": "x"},
			setup: func(w *ws) { w.symlink(filepath.Join(out, "secret"), "l") },
			patch: env("*** Update File: a", "*** Move to: l"), code: "SYMLINK_ESCAPE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runApply(t, tc) })
	}
	if b, _ := os.ReadFile(filepath.Join(out, "secret")); string(b) != "s\n" {
		t.Fatalf("the outside file changed: %q", b)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Fatalf("files were created outside: %v", entries)
	}
}

func TestApplyOneFileTwoSpellings(t *testing.T) {
	link := func(w *ws) {
		os.Mkdir(w.abs("real"), 0o755)
		os.WriteFile(w.abs("real/x"), []byte("1\n"), 0o644)
		w.symlink("real", "ln")
	}
	cases := []applyCase{
		{name: "update then delete through a symlinked directory", setup: link,
			patch: env("*** Update File: ln/x", "-1", "+2", "*** Delete File: real/x"), code: "PATCH_FAILED", msg: "conflicting"},
		{name: "add where another add creates through a link", setup: link,
			patch: env("*** Add File: ln/new", "+a", "*** Add File: real/new", "+b"), code: "PATCH_FAILED", msg: "conflicting"},
		{name: "repeated updates under two spellings apply in order", setup: link,
			patch: env("*** Update File: ln/x", "-1", "+2", "*** Update File: real/x", "-2", "+3"),
			want:  map[string]string{"real/x": "3\n"}, summary: "M ln/x\nM real/x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runApply(t, tc) })
	}
}
