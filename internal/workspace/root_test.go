package workspace_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/workspace"
)

// fixture is a workspace next to an "outside" directory, with symlinks of
// every kind that could lead out of it.
type fixture struct {
	root    *workspace.Root
	outside string // canonical
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	out := filepath.Join(base, "outside")
	for _, d := range []string{ws, out, filepath.Join(out, "sub"), filepath.Join(ws, "dir", "sub"), filepath.Join(ws, ".hidden")} {
		mustMkdir(t, d)
	}
	mustWrite(t, filepath.Join(ws, "file.txt"), "inside\n")
	mustWrite(t, filepath.Join(ws, "dir", "sub", "inner.txt"), "inner\n")
	mustWrite(t, filepath.Join(out, "secret.txt"), "secret\n")
	mustWrite(t, filepath.Join(out, "sub", "deep.txt"), "deep\n")
	links := map[string]string{
		"link-in":                  "file.txt",
		"link-abs-in":              filepath.Join(ws, "file.txt"),
		"link-dir-in":              "dir",
		"link-out":                 filepath.Join(out, "secret.txt"),
		"link-out-rel":             "../outside/secret.txt",
		"link-out-dir":             out,
		"link-root":                "/",
		"link-parent":              "..",
		"dangling-out":             filepath.Join(out, "missing.txt"),
		"dangling-out-rel":         "../outside/missing.txt",
		"dangling-out-deep":        filepath.Join(out, "no", "such", "dir", "f"),
		"dangling-in":              "missing-inside.txt",
		"chain1":                   "chain2",
		"chain2":                   "chain3",
		"chain3":                   filepath.Join(out, "secret.txt"),
		"dchain1":                  "dchain2",
		"dchain2":                  "dchain3",
		"dchain3":                  filepath.Join(out, "missing.txt"),
		"chain-in1":                "chain-in2",
		"chain-in2":                "dir/sub/inner.txt",
		"loop1":                    "loop2",
		"loop2":                    "loop1",
		"self":                     "self",
		"dir/up":                   "..",
		"dir/up2":                  "../..",
		"dir/sub/out-via-dotdot":   "../../../outside",
		"dir/sub/in-via-dotdot":    "../../file.txt",
		"link-dir-in-then-dotdot":  "dir/sub/../../../outside/secret.txt",
		"link-via-link-dotdot":     "link-dir-in/../../outside/secret.txt",
		"link-to-dangling-dir":     "dangling-out/x",
		"link-to-missing-then-out": "missing/../../outside/secret.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	// Outside entries that link back inside: reaching them goes through
	// an escaping parent even though they end inside.
	if err := os.Symlink(filepath.Join(ws, "file.txt"), filepath.Join(out, "back-in")); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.FS.Close() })
	return fixture{root: root, outside: out}
}

func mustMkdir(t testing.TB, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t testing.TB, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func codeOf(err error) string {
	if err == nil {
		return "ok"
	}
	if fe := workspace.Failure(err); fe != nil {
		return fe.Reason
	}
	return "non-workspace error: " + err.Error()
}

const (
	ok      = "ok"
	abs     = "ABSOLUTE_PATH_DENIED"
	outside = "PATH_OUTSIDE_WORKSPACE"
	escape  = "SYMLINK_ESCAPE"
	missing = "NOT_FOUND"
	invalid = "INVALID_ARGUMENT"
)

// resolveCase is one path with its expected outcome for Existing and for
// WriteTarget, and (for successes) the expected Rel.
type resolveCase struct {
	path               string
	existing, write    string
	existRel, writeRel string
}

var resolveCases = []resolveCase{
	// The first lexical check (docs/coding-tools.md#lexical-checks): empty and NUL.
	{path: "", existing: invalid, write: invalid},
	{path: "a\x00b", existing: invalid, write: invalid},
	{path: "file.txt\x00", existing: invalid, write: invalid},
	{path: "\x00", existing: invalid, write: invalid},
	// Step 2: absolute and drive prefixes, backslash-leading.
	{path: "/etc/passwd", existing: abs, write: abs},
	{path: "/", existing: abs, write: abs},
	{path: "//etc", existing: abs, write: abs},
	{path: "C:\\Windows\\system32", existing: abs, write: abs},
	{path: "C:/Windows", existing: abs, write: abs},
	{path: "c:/x", existing: abs, write: abs},
	{path: "z:\\", existing: abs, write: abs},
	{path: "\\etc\\passwd", existing: abs, write: abs},
	{path: "\\\\server\\share", existing: abs, write: abs},
	// Step 3: any ".." segment, before touching the filesystem.
	{path: "..", existing: outside, write: outside},
	{path: "../outside/secret.txt", existing: outside, write: outside},
	{path: "./..", existing: outside, write: outside},
	{path: "a/../b", existing: outside, write: outside},
	{path: "dir/..", existing: outside, write: outside},
	{path: "dir/sub/../../..", existing: outside, write: outside},
	{path: "file.txt/..", existing: outside, write: outside},
	{path: "link-in/..", existing: outside, write: outside},
	{path: "link-out-dir/../ws/file.txt", existing: outside, write: outside},
	{path: "dir//..//x", existing: outside, write: outside},
	// The root itself and plain inside paths.
	{path: ".", existing: ok, existRel: ".", write: invalid},
	{path: "./", existing: ok, existRel: ".", write: invalid},
	{path: "./.", existing: ok, existRel: ".", write: invalid},
	{path: "file.txt", existing: ok, existRel: "file.txt", write: ok, writeRel: "file.txt"},
	{path: "./file.txt", existing: ok, existRel: "file.txt", write: ok, writeRel: "file.txt"},
	{path: "dir//sub/./inner.txt", existing: ok, existRel: "dir/sub/inner.txt", write: ok, writeRel: "dir/sub/inner.txt"},
	{path: "dir/", existing: ok, existRel: "dir", write: ok, writeRel: "dir"},
	{path: ".hidden", existing: ok, existRel: ".hidden", write: ok, writeRel: ".hidden"},
	{path: "missing.txt", existing: missing, write: ok, writeRel: "missing.txt"},
	{path: "new/deep/dirs/file.txt", existing: missing, write: ok, writeRel: "new/deep/dirs/file.txt"},
	{path: "file.txt/below", existing: missing, write: ok, writeRel: "file.txt/below"},
	// A leading ~ is an ordinary name.
	{path: "~", existing: missing, write: ok, writeRel: "~"},
	{path: "~/x", existing: missing, write: ok, writeRel: "~/x"},
	{path: "~root/.ssh", existing: missing, write: ok, writeRel: "~root/.ssh"},
	// Windows-style separators are plain names on POSIX: they can
	// never leave the root.
	{path: `a\..\..\etc`, existing: missing, write: ok, writeRel: `a\..\..\etc`},
	{path: `..\..\etc\passwd`, existing: missing, write: ok, writeRel: `..\..\etc\passwd`},
	{path: `dir\..\..`, existing: missing, write: ok, writeRel: `dir\..\..`},
	{path: `...`, existing: missing, write: ok, writeRel: `...`},
	{path: `..foo`, existing: missing, write: ok, writeRel: `..foo`},
	// Symlinks that stay inside resolve to their canonical path for
	// Existing; WriteTarget keeps the lexical path.
	{path: "link-in", existing: ok, existRel: "file.txt", write: ok, writeRel: "link-in"},
	{path: "link-abs-in", existing: ok, existRel: "file.txt", write: ok, writeRel: "link-abs-in"},
	{path: "link-dir-in/sub/inner.txt", existing: ok, existRel: "dir/sub/inner.txt", write: ok, writeRel: "link-dir-in/sub/inner.txt"},
	{path: "link-dir-in/new.txt", existing: missing, write: ok, writeRel: "link-dir-in/new.txt"},
	{path: "chain-in1", existing: ok, existRel: "dir/sub/inner.txt", write: ok, writeRel: "chain-in1"},
	{path: "dir/up/file.txt", existing: ok, existRel: "file.txt", write: ok, writeRel: "dir/up/file.txt"},
	{path: "dir/up", existing: ok, existRel: ".", write: ok, writeRel: "dir/up"},
	{path: "dir/sub/in-via-dotdot", existing: ok, existRel: "file.txt", write: ok, writeRel: "dir/sub/in-via-dotdot"},
	{path: "dangling-in", existing: missing, write: ok, writeRel: "dangling-in"},
	// Symlinks leaving the root: targets, chains, parents, relative
	// links with "..", links to "/" and to the root's parent.
	{path: "link-out", existing: escape, write: escape},
	{path: "link-out-rel", existing: escape, write: escape},
	{path: "link-out-dir", existing: escape, write: escape},
	{path: "link-out-dir/secret.txt", existing: escape, write: escape},
	{path: "link-out-dir/sub/deep.txt", existing: escape, write: escape},
	{path: "link-out-dir/back-in", existing: ok, existRel: "file.txt", write: escape},
	{path: "link-out-dir/missing.txt", existing: escape, write: outside},
	{path: "link-out-dir/no/such/dir/x", existing: escape, write: outside},
	{path: "link-root", existing: escape, write: escape},
	{path: "link-root/etc/passwd", existing: escape, write: escape},
	{path: "link-root/no-such-top-level-dir/x", existing: escape, write: outside},
	{path: "link-parent", existing: escape, write: escape},
	{path: "link-parent/outside/secret.txt", existing: escape, write: escape},
	{path: "dir/up2", existing: escape, write: escape},
	{path: "dir/up2/outside/secret.txt", existing: escape, write: escape},
	// Out and back in: the kernel would end inside (root.FS refuses the
	// detour, so nothing is reached outside either way).
	{path: "dir/up2/ws/file.txt", existing: ok, existRel: "file.txt", write: ok, writeRel: "dir/up2/ws/file.txt"},
	{path: "dir/up2/new.txt", existing: escape, write: outside},
	{path: "dir/sub/out-via-dotdot/secret.txt", existing: escape, write: escape},
	{path: "dir/sub/out-via-dotdot", existing: escape, write: escape},
	{path: "link-dir-in-then-dotdot", existing: escape, write: escape},
	{path: "link-via-link-dotdot", existing: escape, write: escape},
	{path: "chain1", existing: escape, write: escape},
	{path: "chain2", existing: escape, write: escape},
	// Dangling links (and chains of them) pointing outside.
	{path: "dangling-out", existing: escape, write: escape},
	{path: "dangling-out-rel", existing: escape, write: escape},
	{path: "dangling-out-deep", existing: escape, write: escape},
	{path: "dangling-out/below", existing: escape, write: outside},
	{path: "dchain1", existing: escape, write: escape},
	{path: "dchain2", existing: escape, write: escape},
	{path: "link-to-dangling-dir", existing: escape, write: escape},
	{path: "link-to-missing-then-out", existing: escape, write: escape},
	// Loops cannot be resolved: nothing to read, nothing to write.
	{path: "loop1", existing: missing, write: escape},
	{path: "self", existing: missing, write: escape},
	{path: "loop1/x", existing: missing, write: outside},
	// Very long names and paths up to PATH_MAX fail as not found, never
	// as an escape; longer ones are invalid before anything else.
	{path: strings.Repeat("a", 300), existing: missing, write: ok, writeRel: strings.Repeat("a", 300)},
	{path: strings.Repeat("d/", 2047) + "fg", existing: missing, write: ok, writeRel: strings.Repeat("d/", 2047) + "fg"},
	{path: strings.Repeat("d/", 2047) + "fgh", existing: invalid, write: invalid},
	{path: strings.Repeat("../", 3000), existing: invalid, write: invalid},
}

func TestResolveTable(t *testing.T) {
	fx := newFixture(t)
	for _, c := range resolveCases {
		name := c.path
		if len(name) > 40 {
			name = name[:40] + "…"
		}
		t.Run(name, func(t *testing.T) {
			res, err := fx.root.Existing(c.path)
			if got := codeOf(err); got != c.existing {
				t.Errorf("Existing(%q) = %s (%v), want %s", c.path, got, err, c.existing)
			} else if err == nil && res.Rel != c.existRel {
				t.Errorf("Existing(%q).Rel = %q, want %q", c.path, res.Rel, c.existRel)
			}
			if err == nil {
				checkExisting(t, fx.root, c.path, res)
			}
			wres, err := fx.root.WriteTarget(c.path)
			if got := codeOf(err); got != c.write {
				t.Errorf("WriteTarget(%q) = %s (%v), want %s", c.path, got, err, c.write)
			} else if err == nil && wres.Rel != c.writeRel {
				t.Errorf("WriteTarget(%q).Rel = %q, want %q", c.path, wres.Rel, c.writeRel)
			}
			if err == nil {
				checkWriteTarget(t, fx.root, c.path, wres)
			}
		})
	}
}

// TestResolveErrorShape checks the error objects: category, details.path,
// a message that says the action was denied.
func TestResolveErrorShape(t *testing.T) {
	fx := newFixture(t)
	cases := []struct {
		path, code, category, msg string
	}{
		{"/etc/passwd", abs, "security", "absolute path denied"},
		{"../x", outside, "security", "escapes the workspace"},
		{"link-out", escape, "security", "symlink escape denied"},
		{"", invalid, "validation", "invalid path"},
		{"nope", missing, "not_found", "not found"},
	}
	for _, c := range cases {
		_, err := fx.root.Existing(c.path)
		we := workspace.Failure(err)
		if we == nil {
			t.Fatalf("Existing(%q): %v is not a failure with a profile code", c.path, err)
		}
		k := workspace.Classify(we)
		if we.Reason != c.code || string(k.Code) != c.code || string(k.Category) != c.category || k.Retryable || we.Details == nil || !strings.Contains(we.Msg, c.msg) {
			t.Errorf("Existing(%q) = %+v, want code %s category %s message containing %q", c.path, we, c.code, c.category, c.msg)
		}
		if _, ok := we.Details["path"]; !ok {
			t.Errorf("Existing(%q): details %v lack the path", c.path, we.Details)
		}
		if strings.Contains(we.Msg, fx.outside) {
			t.Errorf("Existing(%q): message %q reveals the outside path", c.path, we.Msg)
		}
	}
	if _, err := fx.root.WriteTarget("."); codeOf(err) != invalid {
		t.Errorf("WriteTarget(.) = %v, want INVALID_ARGUMENT", err)
	}
}

// TestResolveSymlinkSwappedAfterCheck shows why the tools open through
// root.FS: a directory replaced by an escaping symlink after the check
// cannot be followed out.
func TestResolveSymlinkSwappedAfterCheck(t *testing.T) {
	fx := newFixture(t)
	res, err := fx.root.Existing("dir/sub/inner.txt")
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(fx.outside, "inner.txt"), "outside\n")
	sub := filepath.Join(fx.root.Path, "dir", "sub")
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fx.outside, sub); err != nil {
		t.Fatal(err)
	}
	if b, err := fx.root.FS.ReadFile(res.Rel); err == nil {
		t.Fatalf("root.FS read %q through a swapped symlink: %q", res.Rel, b)
	}
	if _, err := fx.root.Existing("dir/sub/inner.txt"); codeOf(err) != escape {
		t.Fatalf("after the swap Existing = %v, want SYMLINK_ESCAPE", err)
	}
	if _, err := fx.root.WriteTarget("dir/sub/new.txt"); codeOf(err) != outside {
		t.Fatalf("after the swap WriteTarget(missing) = %v, want PATH_OUTSIDE_WORKSPACE", err)
	}
}

func TestOpenRefusesUnsafeWorkspaces(t *testing.T) {
	if _, err := workspace.Open("/"); err == nil || !strings.Contains(err.Error(), "filesystem root") {
		t.Errorf("Open(/) = %v, want a refusal naming the filesystem root", err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	if _, err := workspace.Open(home); err == nil || !strings.Contains(err.Error(), "home directory") {
		t.Errorf("Open($HOME) = %v, want a refusal naming the home directory", err)
	}
	link := filepath.Join(t.TempDir(), "home-link")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	if _, err := workspace.Open(link); err == nil {
		t.Errorf("Open(symlink to $HOME) succeeded")
	}
	if _, err := workspace.Open(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Open(missing) = %v", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	mustWrite(t, f, "x")
	if _, err := workspace.Open(f); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Open(file) = %v", err)
	}
	// A symlinked workspace is canonicalised once.
	real := t.TempDir()
	wl := filepath.Join(t.TempDir(), "ws-link")
	if err := os.Symlink(real, wl); err != nil {
		t.Fatal(err)
	}
	r, err := workspace.Open(wl)
	if err != nil {
		t.Fatal(err)
	}
	defer r.FS.Close()
	canon, _ := filepath.EvalSymlinks(real)
	if r.Path != canon || !filepath.IsAbs(r.Path) {
		t.Errorf("Open(link).Path = %q, want %q", r.Path, canon)
	}
	// A relative workspace is made absolute.
	t.Chdir(real)
	r2, err := workspace.Open(".")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.FS.Close()
	if r2.Path != canon {
		t.Errorf("Open(.).Path = %q, want %q", r2.Path, canon)
	}
}

// inside reports whether canon lies in root (or is root).
func inside(root, canon string) bool {
	if canon == root {
		return true
	}
	rel, err := filepath.Rel(root, canon)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// checkExisting asserts the invariants of a successful Existing: Abs is
// canonical and inside, Rel is its workspace-relative form, and opening
// Rel through root.FS reaches the same file.
func checkExisting(t testing.TB, r *workspace.Root, p string, res workspace.Resolved) {
	t.Helper()
	canon, err := filepath.EvalSymlinks(res.Abs)
	if err != nil {
		t.Fatalf("Existing(%q).Abs %q does not resolve: %v", p, res.Abs, err)
	}
	if canon != res.Abs {
		t.Fatalf("Existing(%q).Abs %q is not canonical (%q)", p, res.Abs, canon)
	}
	if !inside(r.Path, canon) {
		t.Fatalf("Existing(%q).Abs %q lies outside %q", p, canon, r.Path)
	}
	want := "."
	if canon != r.Path {
		rel, _ := filepath.Rel(r.Path, canon)
		want = filepath.ToSlash(rel)
	}
	if res.Rel != want {
		t.Fatalf("Existing(%q).Rel = %q, want %q", p, res.Rel, want)
	}
	fi, err := r.FS.Stat(filepath.FromSlash(res.Rel))
	if err != nil {
		t.Fatalf("Existing(%q) accepted, but root.FS.Stat(%q): %v", p, res.Rel, err)
	}
	osfi, err := os.Stat(res.Abs)
	if err != nil || !os.SameFile(fi, osfi) {
		t.Fatalf("Existing(%q): root.FS and Abs disagree (%v)", p, err)
	}
	checkFSOpen(t, r, p)
}

// checkWriteTarget asserts the invariants of a successful WriteTarget: Abs
// is the lexical target under the root, its nearest existing ancestor
// resolves inside, an existing target resolves inside, and root.FS never
// reaches anything outside through it.
func checkWriteTarget(t testing.TB, r *workspace.Root, p string, res workspace.Resolved) {
	t.Helper()
	if !strings.HasPrefix(res.Abs, r.Path+string(filepath.Separator)) {
		t.Fatalf("WriteTarget(%q).Abs %q is not under %q", p, res.Abs, r.Path)
	}
	rel, _ := filepath.Rel(r.Path, res.Abs)
	if filepath.ToSlash(rel) != res.Rel {
		t.Fatalf("WriteTarget(%q): Rel %q and Abs %q disagree", p, res.Rel, res.Abs)
	}
	for _, seg := range strings.Split(res.Rel, "/") {
		if seg == ".." || seg == "." || seg == "" {
			t.Fatalf("WriteTarget(%q).Rel %q has a %q segment", p, res.Rel, seg)
		}
	}
	// The nearest ancestor that resolves (a dangling or looping link does
	// not) must be inside.
	for dir := res.Abs; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(dir); err == nil {
			if canon, err := filepath.EvalSymlinks(dir); err == nil {
				if !inside(r.Path, canon) {
					t.Fatalf("WriteTarget(%q): %q resolves outside, to %q", p, dir, canon)
				}
				break
			}
		}
		if dir == r.Path {
			break
		}
	}
	// What root.FS opens for the target is what the target is.
	if fi, err := r.FS.Stat(filepath.FromSlash(res.Rel)); err == nil {
		osfi, oerr := os.Stat(res.Abs)
		if oerr != nil || !os.SameFile(fi, osfi) {
			t.Fatalf("WriteTarget(%q): root.FS reached something Abs does not (%v)", p, oerr)
		}
		canon, _ := filepath.EvalSymlinks(res.Abs)
		if !inside(r.Path, canon) {
			t.Fatalf("WriteTarget(%q): root.FS reached %q outside", p, canon)
		}
	}
	checkFSOpen(t, r, p)
}

// checkFSOpen asserts that whatever root.FS opens for the raw input is
// inside the root.
func checkFSOpen(t testing.TB, r *workspace.Root, p string) {
	t.Helper()
	if p == "" || strings.ContainsRune(p, 0) {
		return
	}
	fi, err := r.FS.Stat(p)
	if err != nil {
		return
	}
	var osPath string
	if filepath.IsAbs(p) {
		osPath = p
	} else {
		osPath = filepath.Join(r.Path, p)
	}
	canon, err := filepath.EvalSymlinks(osPath)
	if err != nil {
		return
	}
	osfi, err := os.Stat(canon)
	if err == nil && os.SameFile(fi, osfi) && !inside(r.Path, canon) {
		t.Fatalf("root.FS.Stat(%q) reached %q outside the root", p, canon)
	}
}

// FuzzResolve: whatever the input, a successful Existing or WriteTarget
// stays inside the root, and every failure carries one of the path codes.
func FuzzResolve(f *testing.F) {
	for _, c := range resolveCases {
		f.Add(c.path)
	}
	for _, s := range []string{"link-out-dir/sub", "dir/sub/out-via-dotdot/sub/deep.txt", "link-parent/ws/link-out",
		"dir/up/dir/up/dir/up2", "link-dir-in/sub/../../x", "dchain1/x", "link-in/x", ".hidden/../x", "a/./b/./c"} {
		f.Add(s)
	}
	fx := newFixture(f)
	codes := map[string]bool{ok: true, abs: true, outside: true, escape: true, missing: true, invalid: true}
	f.Fuzz(func(t *testing.T, p string) {
		res, err := fx.root.Existing(p)
		if c := codeOf(err); !codes[c] {
			t.Fatalf("Existing(%q): unexpected error %s", p, c)
		}
		if err == nil {
			checkExisting(t, fx.root, p, res)
		}
		wres, werr := fx.root.WriteTarget(p)
		if c := codeOf(werr); !codes[c] {
			t.Fatalf("WriteTarget(%q): unexpected error %s", p, c)
		}
		if werr == nil {
			checkWriteTarget(t, fx.root, p, wres)
		}
		// The lexical rules hold whatever the filesystem says.
		switch {
		case p == "" || strings.ContainsRune(p, 0):
			if codeOf(err) != invalid || codeOf(werr) != invalid {
				t.Fatalf("%q: want INVALID_ARGUMENT, got %v / %v", p, err, werr)
			}
		case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`):
			if codeOf(err) != abs || codeOf(werr) != abs {
				t.Fatalf("%q: want ABSOLUTE_PATH_DENIED, got %v / %v", p, err, werr)
			}
		}
		if err == nil || werr == nil {
			for _, seg := range strings.Split(p, "/") {
				if seg == ".." {
					t.Fatalf("%q has a .. segment but was accepted", p)
				}
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Existing(%q) leaked a raw fs error: %v", p, err)
		}
	})
}
