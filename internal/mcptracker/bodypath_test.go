package mcptracker_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/mcptracker"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

const outsideSecret = "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n"

// refused calls a tool that must fail with invalid_argument without a
// word of the outside file in its answer.
func (f *fixture) refused(name string, args map[string]any) {
	f.t.Helper()
	e := f.fails(name, args, "invalid_argument")
	if strings.Contains(e.Text, "secret-key-material") {
		f.t.Errorf("%s leaked the outside file: %s", name, e.Text)
	}
	if e.Hint == "" {
		f.t.Errorf("%s: %q has no hint", name, e.Text)
	}
}

func sameContent(t *testing.T, path, want string) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Errorf("%s changed: %q, %v", path, got, err)
	}
}

// TestSpecBodyConfined: show_spec and update_spec never follow a record's
// file_path (edited on disk, as a pull can) or a committed symlink out of
// the project, and create_spec's file_path never names a source file, a
// file in .git, or an absolute path.
func TestSpecBodyConfined(t *testing.T) {
	f := initialised(t, mcptracker.Options{})
	dir := filepath.Join(f.dir, ".sudocode")
	outside := t.TempDir()
	key := filepath.Join(outside, "id_rsa")
	os.WriteFile(key, []byte(outsideSecret), 0o600)

	id := f.ok("create_spec", map[string]any{"title": "Victim", "design": "# mine\n"}).str("id")
	rel, _ := filepath.Rel(dir, key)
	specs := trackertest.RecordFile[tracker.SpecRecord](dir, id)
	data, _ := os.ReadFile(specs)
	edited := strings.Replace(string(data), `"file_path":"specs/`+id+`.md"`, `"file_path":"`+filepath.ToSlash(rel)+`"`, 1)
	os.WriteFile(specs, []byte(edited), 0o644)
	f.refused("show_spec", map[string]any{"spec_id": id})
	f.refused("update_spec", map[string]any{"spec_id": id, "content": "# overwritten\n"})
	sameContent(t, key, outsideSecret)
	os.WriteFile(specs, data, 0o644)

	// A symlinked body file that leads outside.
	body := filepath.Join(dir, "specs", id+".md")
	os.Remove(body)
	os.Symlink(key, body)
	f.refused("show_spec", map[string]any{"spec_id": id})
	f.refused("update_spec", map[string]any{"spec_id": id, "content": "# overwritten\n"})
	sameContent(t, key, outsideSecret)
	os.Remove(body)

	// A symlinked .sudocode/specs that leads outside.
	os.RemoveAll(filepath.Join(dir, "specs"))
	os.Symlink(outside, filepath.Join(dir, "specs"))
	f.refused("create_spec", map[string]any{"title": "Planted", "design": "# planted\n"})
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the outside directory holds %d files, want the one it had", len(entries))
	}
	os.Remove(filepath.Join(dir, "specs"))
	os.Mkdir(filepath.Join(dir, "specs"), 0o755)

	mainGo, gitConfig := filepath.Join(f.dir, "main.go"), filepath.Join(f.dir, ".git", "config")
	os.WriteFile(mainGo, []byte("package main\n"), 0o644)
	os.MkdirAll(filepath.Dir(gitConfig), 0o755)
	os.WriteFile(gitConfig, []byte("[core]\n\tbare = false\n"), 0o644)
	for _, fp := range []string{"../main.go", "../.git/config", "../.git/info/x.md", filepath.Join(f.dir, "abs.md")} {
		f.refused("create_spec", map[string]any{"title": "Planted", "file_path": fp, "design": "[core]\n\tfsmonitor = touch pwned\n"})
	}
	sameContent(t, mainGo, "package main\n")
	sameContent(t, gitConfig, "[core]\n\tbare = false\n")
	f.fails("create_spec", map[string]any{"title": "Twin", "file_path": "specs/" + id + ".md"}, "conflict")
}
