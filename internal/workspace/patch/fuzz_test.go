package patch

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
)

var fuzzSeeds = []string{
	env("*** Add File: a.txt", "+x"),
	env("*** Delete File: f.txt"),
	env("*** Update File: f.txt", "@@ two", " three", "-four", "+4", "*** End of File"),
	env("*** Update File: f.txt", "*** Move to: g/h.txt", "@@", "-one", "+1"),
	env("*** Update File: crlf.txt", "-a", "+b", "", "@@ -1 +1 @@", "+c"),
	env("*** Update File: f.txt", "-two", "+2", "*** Update File: f.txt", "-2", "+II", "*** Add File: d/e", "+e"),
	env("*** Add File: link", "+x"),
	env("*** Update File: f.txt", "-nope"),
	"*** Begin Patch\n*** Add File: ../x\n+x\n*** End Patch",
	"*** Begin Patch\r\n*** Update File: f.txt\r\n one\r\n\r\n*** End Patch",
	"",
	"*** Begin Patch",
	"*** Begin Patch\n@@\n*** End Patch",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ops, err := parse(text)
		if err != nil {
			var we *fault.Error
			if !errors.As(err, &we) || we.Reason != "PATCH_FAILED" {
				t.Fatalf("parse error %T %v", err, err)
			}
			return
		}
		if len(ops) == 0 {
			t.Fatal("success without operations")
		}
		for _, op := range ops {
			if op.kind == opUpdate && len(op.chunks) == 0 && !op.hasMov {
				t.Fatal("empty update accepted")
			}
			for _, c := range op.chunks {
				if len(c.lines) == 0 {
					t.Fatal("empty chunk accepted")
				}
			}
		}
	})
}

func FuzzApply(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, dryRun bool) {
		w := newWS(t)
		w.write("f.txt", "one\ntwo\nthree\nfour\n")
		w.write("crlf.txt", bom+"a\r\nb\r\n")
		w.write("d/x", "x")
		w.symlink("f.txt", "link")
		before := snapshot(t, w.dir)
		p := NewPatcher()
		res, err := p.Apply(w.root, text, dryRun)
		after := snapshot(t, w.dir)
		if err != nil {
			var we *fault.Error
			if !errors.As(err, &we) || we.Reason == "INTERNAL_ERROR" {
				t.Fatalf("error %T %v", err, err)
			}
			sameSnapshot(t, before, after)
			if len(p.Originals()) != 0 {
				t.Fatal("a failed patch recorded originals")
			}
			return
		}
		if dryRun {
			sameSnapshot(t, before, after)
		}
		if res.DryRun != dryRun || res.Warnings == nil {
			t.Fatalf("result %v", res)
		}
		if after["link"] != before["link"] {
			t.Fatal("a symlink was replaced")
		}
		for k := range after {
			if strings.Contains(k, ".patch-tmp") {
				t.Fatalf("temp file left: %s", k)
			}
		}
		if _, err := os.Lstat(w.dir); err != nil {
			t.Fatal(err)
		}
	})
}
