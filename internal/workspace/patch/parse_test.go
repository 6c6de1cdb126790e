package patch

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/workspace"
)

// describeOps renders parsed operations compactly for comparisons.
func describeOps(ops []*operation) []string {
	var out []string
	for _, op := range ops {
		switch op.kind {
		case opAdd:
			out = append(out, "add "+op.path+" "+strings.Join(op.add, "|")+" #"+itoa(len(op.add)))
		case opDelete:
			out = append(out, "delete "+op.path)
		case opUpdate:
			s := "update " + op.path
			if op.hasMov {
				s += " -> " + op.moveTo
			}
			for _, c := range op.chunks {
				s += " {"
				if c.hasAnchor {
					s += "@" + c.anchor + ":"
				}
				for _, l := range c.lines {
					s += string(l.kind) + l.text + ";"
				}
				if c.eof {
					s += "EOF"
				}
				s += "}"
			}
			out = append(out, s)
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestParseValid(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  []string
	}{
		{"add", env("*** Add File: a.txt", "+one", "+", "+three"),
			[]string{"add a.txt one||three #3"}},
		{"add with no lines is an empty file", env("*** Add File: e.txt"),
			[]string{"add e.txt  #0"}},
		{"add ignores trailing blank lines", env("*** Add File: a", "+x", "", "  ", "*** Delete File: b"),
			[]string{"add a x #1", "delete b"}},
		{"header paths are trimmed", env("*** Add File:   sp ace.txt  ", "+x"),
			[]string{"add sp ace.txt x #1"}},
		{"delete", env("*** Delete File: d.txt"), []string{"delete d.txt"}},
		{"blank lines between operations", env("", "*** Delete File: a", "", "", "*** Delete File: b", ""),
			[]string{"delete a", "delete b"}},
		{"first chunk without @@", env("*** Update File: u", " ctx", "-old", "+new"),
			[]string{"update u { ctx;-old;+new;}"}},
		{"anchors", env("*** Update File: u", "@@ func a() {", "-x", "+y", "@@", " z", "+w"),
			[]string{"update u {@func a() {:-x;+y;} { z;+w;}"}},
		{"unified range is no anchor", env("*** Update File: u", "@@ -1,3 +1,4 @@", "-x", "+y", "@@ -7 +7 @@ func f()", "-p"),
			[]string{"update u {-x;+y;} {-p;}"}},
		{"empty line is empty context", env("*** Update File: u", "@@", " a", "", "-b"),
			[]string{"update u { a; ;-b;}"}},
		{"blank lines ending a chunk separate it", env("*** Update File: u", "@@", "-a", "", "@@", "-b", "", "", "*** Delete File: x"),
			[]string{"update u {-a;} {-b;}", "delete x"}},
		{"blank lines before the first chunk are context when the chunk follows", env("*** Update File: u", "", "-a"),
			[]string{"update u { ;-a;}"}},
		{"end of file", env("*** Update File: u", "@@", " last", "+more", "*** End of File"),
			[]string{"update u { last;+more;EOF}"}},
		{"end of file keeps blank context before it", env("*** Update File: u", "@@", "-x", "", "*** End of File"),
			[]string{"update u {-x; ;EOF}"}},
		{"move only", env("*** Update File: a", "*** Move to: b"), []string{"update a -> b"}},
		{"move with chunks", env("*** Update File: a", "*** Move to: b", "@@", "-x", "+y"),
			[]string{"update a -> b {-x;+y;}"}},
		{"CRLF normalised", strings.ReplaceAll(env("*** Add File: a", "+x", "+y"), "\n", "\r\n"),
			[]string{"add a x|y #2"}},
		{"markers trimmed, surrounding whitespace ignored", "\n\n  *** Begin Patch  \n*** Delete File: a\n\t*** End Patch \n\n\n",
			[]string{"delete a"}},
		{"end patch without final newline", "*** Begin Patch\n*** Delete File: a\n*** End Patch",
			[]string{"delete a"}},
		{"lines of spaces are context", env("*** Update File: u", "   x", "-y"),
			[]string{"update u {   x;-y;}"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ops, err := parse(tc.patch)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if got := describeOps(ops); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		msg   string
		line  int // 0: no line expected
	}{
		{"empty", "   \n ", "invalid patch envelope", 0},
		{"missing begin", "*** Add File: a\n+x\n*** End Patch", "first line must be '*** Begin Patch'", 1},
		{"wrong begin", "*** Start Patch\n*** End Patch", "first line must be '*** Begin Patch'", 1},
		{"missing end", "*** Begin Patch\n*** Add File: a\n+x\n", "last line must be '*** End Patch'", 3},
		{"only begin", "*** Begin Patch", "last line must be '*** End Patch'", 1},
		{"no operations", "*** Begin Patch\n*** End Patch", "no files were modified", 0},
		{"only blank lines", "*** Begin Patch\n\n\n*** End Patch", "no files were modified", 0},
		{"unknown top-level line", env("hello"), "unexpected line 2", 2},
		{"unknown header", env("*** Rename File: a"), "unexpected line 2", 2},
		{"content after end", env("*** Delete File: a", "*** End Patch", "*** Delete File: b"), "after '*** End Patch'", 3},
		{"add with a non-plus line", env("*** Add File: a", "+x", "y"), "unexpected line 4", 4},
		{"add with a blank line in the middle", env("*** Add File: a", "+x", "", "+y"), "unexpected line 4", 4},
		{"delete with a body", env("*** Delete File: a", "-x"), "unexpected line 3", 3},
		{"empty update", env("*** Update File: a"), "empty update", 2},
		{"empty update before another op", env("*** Update File: a", "", "*** Delete File: b"), "empty update", 2},
		{"move to not after header", env("*** Update File: a", "@@", "-x", "*** Move to: b"), "must directly follow", 5},
		{"move to at top level", env("*** Move to: b"), "must directly follow", 2},
		{"no newline marker", env("*** Update File: a", "@@", "-x", `\ No newline at end of file`), "unexpected line 5", 5},
		{"tab-indented line", env("*** Update File: a", "@@", "\tx"), "unexpected line 4", 4},
		{"empty chunk", env("*** Update File: a", "@@ one", "@@ two", "-x"), "empty chunk", 3},
		{"trailing empty chunk", env("*** Update File: a", "@@", "-x", "@@"), "empty chunk", 5},
		{"end of file without lines", env("*** Update File: a", "@@", "*** End of File"), "must follow the lines of a chunk", 4},
		{"chunk after end of file needs @@", env("*** Update File: a", "-x", "*** End of File", " y"), "must start with '@@'", 5},
		{"line numbers count leading blank lines", "\n\n*** Begin Patch\n*** Add File: a\nnope\n*** End Patch", "unexpected line 5", 5},
		{"CRLF line numbers", "*** Begin Patch\r\n*** Add File: a\r\n+x\r\nnope\r\n*** End Patch\r\n", "unexpected line 4", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(tc.patch)
			we := asErr(t, err, "PATCH_FAILED")
			if workspace.Classify(we).Category != "validation" {
				t.Fatalf("category %s", workspace.Classify(we).Category)
			}
			contains(t, we.Msg, tc.msg)
			if tc.line > 0 && we.Details["line"] != tc.line {
				t.Fatalf("details.line = %v, want %d (%s)", we.Details["line"], tc.line, we.Msg)
			}
		})
	}
}

func TestRetryChunkWithoutTrailingEmptyContext(t *testing.T) {
	c := &chunk{lines: []patchLine{{ctxLine, "a"}, {delLine, "b"}, {ctxLine, ""}, {insLine, "n"}, {ctxLine, ""}}}
	r := c.withoutTrailingEmptyContext()
	if r == nil || !reflect.DeepEqual(r.old(), []string{"a", "b"}) {
		t.Fatalf("retry chunk: %+v", r)
	}
	if len(c.lines) != 5 {
		t.Fatal("the original chunk was modified")
	}
	if (&chunk{lines: []patchLine{{delLine, ""}}}).withoutTrailingEmptyContext() != nil {
		t.Fatal("a removed empty line is not context")
	}
	if (&chunk{lines: []patchLine{{ctxLine, ""}, {insLine, "x"}}}).withoutTrailingEmptyContext() != nil {
		t.Fatal("a retry must keep something to match")
	}
}
