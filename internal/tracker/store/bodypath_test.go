package store_test

// Tests of where a spec's markdown body may live: inside the project,
// outside .git, a markdown file, never another file. A record's file_path
// comes from specs.jsonl, which a merge or a pull can bring, and the
// directories on the way can be symbolic links committed to the project:
// neither may make the tracker read or write anything else.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

const secret = "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n"

// outsideFile is a file outside the project holding secret, as a user's
// ~/.ssh/id_rsa would be.
func outsideFile(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// unchanged checks that path still holds want, byte for byte.
func unchanged(t *testing.T, path, want string) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Errorf("%s changed: %q, %v", path, got, err)
	}
}

// noLeak checks that what the tracker answered holds none of secret.
func noLeak(t *testing.T, what string, answer any, err error) {
	t.Helper()
	text := fmt.Sprintf("%+v", answer)
	if err != nil {
		text += err.Error() + fault.HintOf(err)
	}
	if strings.Contains(text, "secret-key-material") || strings.Contains(text, "PRIVATE KEY") {
		t.Errorf("%s leaked the outside file: %s", what, text)
	}
}

// setFilePath edits spec id's file_path in its shard file by hand, as a
// merge or a pull could.
func (e *env) setFilePath(id, p string) {
	e.t.Helper()
	e.editRecord(tracker.SpecRecords, id, func(l string) []string {
		return []string{strings.Replace(l, `"file_path":"specs/`+id+`.md"`, `"file_path":"`+p+`"`, 1)}
	})
}

// TestRecordPathOutsideProject: a record whose file_path leads out of the
// project (../../home/x/.ssh/id_rsa) is reported as an invalid record,
// like any other, and never followed: show answers an error, never the
// outside file's content, and update never writes it.
func TestRecordPathOutsideProject(t *testing.T) {
	for _, name := range []string{"id_rsa", "notes.md"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			id := e.spec("victim", store.SpecInput{Design: "# mine\n"})
			out := outsideFile(t, name)
			rel, err := filepath.Rel(e.dir, out)
			if err != nil {
				t.Fatal(err)
			}
			e.setFilePath(id, filepath.ToSlash(rel))
			e.next()

			d, err := e.r.ShowSpec(e.ctx, id)
			wantCode(t, "show", err, fault.Invalid)
			noLeak(t, "show", d, err)
			if err != nil && !strings.Contains(err.Error(), tracker.ShardFile(tracker.SpecRecords, id)+" line 1") {
				t.Errorf("show: %q does not name the record's line", err)
			}
			content := "# overwritten\n"
			_, err = e.r.UpdateSpec(e.ctx, id, store.SpecPatch{Content: &content})
			wantCode(t, "update", err, fault.Invalid)
			res, err := e.r.Search(e.ctx, store.SearchOptions{Query: "secret-key-material"})
			noLeak(t, "search", res, err)
			unchanged(t, out, secret)
		})
	}
}

// TestSymlinkedSpecsDir: a committed symlink .sudocode/specs leading out
// of the project is never followed, to read or to write.
func TestSymlinkedSpecsDir(t *testing.T) {
	e := newEnv(t)
	id := e.spec("victim", store.SpecInput{Design: "# mine\n"})
	out := filepath.Dir(outsideFile(t, id+".md"))
	specs := filepath.Join(e.dir, store.SpecsDir)
	if err := os.RemoveAll(specs); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, specs); err != nil {
		t.Fatal(err)
	}
	e.next()

	d, err := e.r.ShowSpec(e.ctx, id)
	wantCode(t, "show through the link", err, fault.Invalid)
	noLeak(t, "show through the link", d, err)
	content := "# overwritten\n"
	_, err = e.r.UpdateSpec(e.ctx, id, store.SpecPatch{Content: &content})
	wantCode(t, "update through the link", err, fault.Invalid)
	res, err := e.r.Search(e.ctx, store.SearchOptions{Query: "secret-key-material"})
	noLeak(t, "search through the link", res, err)
	_, err = e.r.CreateSpec(e.ctx, store.SpecInput{Title: "new", Design: "# planted\n"})
	wantCode(t, "create through the link", err, fault.Invalid)
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 {
		t.Errorf("the outside directory now holds %d files, want only the one it had", len(entries))
	}
	unchanged(t, filepath.Join(out, id+".md"), secret)
}

// TestSymlinkedBody: a spec body that is a symlink is followed only to a
// markdown file inside the project and outside .git.
func TestSymlinkedBody(t *testing.T) {
	e := newEnv(t)
	id := e.spec("victim", store.SpecInput{Design: "# mine\n"})
	body := filepath.Join(e.dir, store.SpecsDir, id+".md")
	gitConfig := filepath.Join(e.root, ".git", "config")
	os.MkdirAll(filepath.Dir(gitConfig), 0o755)
	os.WriteFile(gitConfig, []byte(secret), 0o644)
	envFile := filepath.Join(e.root, ".env")
	os.WriteFile(envFile, []byte(secret), 0o644)
	for _, target := range []string{outsideFile(t, "id_rsa"), outsideFile(t, "notes.md"), gitConfig, envFile} {
		os.Remove(body)
		if err := os.Symlink(target, body); err != nil {
			t.Fatal(err)
		}
		e.next()
		d, err := e.r.ShowSpec(e.ctx, id)
		wantCode(t, "show "+target, err, fault.Invalid)
		noLeak(t, "show "+target, d, err)
		content := "# overwritten\n"
		_, err = e.r.UpdateSpec(e.ctx, id, store.SpecPatch{Content: &content})
		wantCode(t, "update "+target, err, fault.Invalid)
		line := 1
		_, err = e.r.AddFeedback(e.ctx, store.FeedbackInput{IssueID: e.issue("reader", store.IssueInput{}), SpecID: id, Line: &line, Content: "x"})
		wantCode(t, "feedback on "+target, err, fault.Invalid)
		res, err := e.r.Search(e.ctx, store.SearchOptions{Query: "secret-key-material"})
		noLeak(t, "search "+target, res, err)
		unchanged(t, target, secret)
	}

	// A link to a markdown file elsewhere in the project is a body like any other.
	doc := filepath.Join(e.root, "docs", "design.md")
	os.MkdirAll(filepath.Dir(doc), 0o755)
	os.WriteFile(doc, []byte("# the design\n"), 0o644)
	os.Remove(body)
	os.Symlink(filepath.Join("..", "..", "docs", "design.md"), body)
	e.next()
	if d, err := e.r.ShowSpec(e.ctx, id); err != nil || d.Content != "# the design\n" {
		t.Errorf("show through a link inside the project: %q, %v", d.Content, err)
	}
}

// TestCreateSpecPathRefused: create_spec's file_path never names a file
// outside the project, inside .git, that is not markdown, or that already
// exists; a refusal writes nothing.
func TestCreateSpecPathRefused(t *testing.T) {
	e := newEnv(t)
	other := e.spec("other", store.SpecInput{Design: "# other's body\n"})
	files := map[string]string{
		"main.go":        "package main\n",
		"README.md":      "# readme\n",
		".git/config":    "[core]\n\tbare = false\n",
		"docs/.git/x.md": "# nested\n",
	}
	for name, content := range files {
		p := filepath.Join(e.root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := e.snapshot()
	for p, code := range map[string]fault.Code{
		"../main.go":                              fault.Invalid,
		"../.git/config":                          fault.Invalid,
		"../.git/hooks/pre-commit.md":             fault.Invalid,
		"../.GIT/info/x.md":                       fault.Invalid,
		"../docs/.Git/x.md":                       fault.Invalid,
		"../sub/.git./x.md":                       fault.Invalid,
		"../README.md":                            fault.Invalid,
		"../notes.txt":                            fault.Invalid,
		"../Makefile":                             fault.Invalid,
		filepath.Join(e.root, "abs.md"):           fault.Invalid,
		"/etc/passwd":                             fault.Invalid,
		"specs/" + other + ".md":                  fault.Conflict,
		"specs/./" + other + ".md":                fault.Conflict,
		"specs/" + strings.ToUpper(other) + ".md": fault.Conflict,
	} {
		_, err := e.r.CreateSpec(e.ctx, store.SpecInput{Title: "bad", FilePath: p, Design: "[core]\n\tfsmonitor = touch pwned\n"})
		wantCode(t, "file path "+p, err, code)
		if err != nil && fault.HintOf(err) == "" {
			t.Errorf("file path %s: %q has no hint", p, err)
		}
	}
	sameSnapshot(t, "refused file paths", before, e.snapshot())
	for name, content := range files {
		unchanged(t, filepath.Join(e.root, filepath.FromSlash(name)), content)
	}
	if _, err := os.Stat(filepath.Join(e.root, "notes.txt")); err == nil {
		t.Error("a refused file path was created")
	}
}

// TestRecordsShareABody: two records naming the same body (a merge can
// bring that) are reported as invalid: an update of one would replace the
// other's markdown.
func TestRecordsShareABody(t *testing.T) {
	e := newEnv(t)
	a := e.spec("a", store.SpecInput{Design: "# a\n"})
	b := e.spec("b", store.SpecInput{Design: "# b\n"})
	e.setFilePath(b, "specs/"+a+".md")
	e.next()
	content := "# b again\n"
	_, err := e.r.UpdateSpec(e.ctx, b, store.SpecPatch{Content: &content})
	wantCode(t, "update a spec sharing a body", err, fault.Invalid)
	if err != nil && !strings.Contains(err.Error(), a) {
		t.Errorf("the error %q does not name the other spec", err)
	}
	unchanged(t, filepath.Join(e.dir, "specs", a+".md"), "# a\n")
}

// TestImportBodiesConfined: an import copies spec bodies only from inside
// the export's project and only over files that are that spec's body
// here; a refusal imports nothing.
func TestImportBodiesConfined(t *testing.T) {
	src := newEnv(t)
	id := src.spec("shared", store.SpecInput{Design: "# shared\n"})
	exp := filepath.Join(t.TempDir(), "export")
	if _, err := src.r.Export(src.ctx, exp); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	if _, err := e.r.Import(e.ctx, exp); err != nil {
		t.Fatal(err)
	}
	if d, err := e.r.ShowSpec(e.ctx, id); err != nil || d.Content != "# shared\n" {
		t.Fatalf("imported spec: %q, %v", d.Content, err)
	}

	// An incoming body that is a symlink out of the export's project.
	key := outsideFile(t, "notes.md")
	body := filepath.Join(exp, "specs", id+".md")
	os.Remove(body)
	os.Symlink(key, body)
	e2 := newEnv(t)
	before := e2.snapshot()
	_, err := e2.r.Import(e2.ctx, exp)
	wantCode(t, "import of a linked body", err, fault.Invalid)
	noLeak(t, "import of a linked body", nil, err)
	sameSnapshot(t, "refused import", before, e2.snapshot())

	// An incoming spec whose body would replace a document here.
	os.Remove(body)
	os.WriteFile(body, []byte("# planted\n"), 0o644)
	specs := filepath.Join(exp, filepath.FromSlash(tracker.ShardFile(tracker.SpecRecords, id)))
	data, _ := os.ReadFile(specs)
	os.WriteFile(specs, []byte(strings.Replace(string(data), `"specs/`+id+`.md"`, `"../README.md"`, 1)), 0o644)
	os.WriteFile(filepath.Join(filepath.Dir(exp), "README.md"), []byte("# planted\n"), 0o644)
	readme := filepath.Join(e2.root, "README.md")
	os.WriteFile(readme, []byte("# the project\n"), 0o644)
	_, err = e2.r.Import(e2.ctx, exp)
	wantCode(t, "import over a document", err, fault.Invalid)
	unchanged(t, readme, "# the project\n")
	sameSnapshot(t, "refused import", before, e2.snapshot())
}
