package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

const outsideSecret = "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n"

// refused runs a command that must fail with invalid_argument (exit 2)
// and print nothing of the outside file.
func (p *proj) refused(args ...string) {
	p.t.Helper()
	for _, a := range [][]string{args, append(args, "--json")} {
		r := p.run(a...)
		if r.code != 2 || (len(a) > len(args) && !strings.Contains(r.stderr, `"invalid_argument"`)) {
			p.t.Errorf("sudocode %s: exit %d, stderr %q; want 2, invalid_argument", strings.Join(a, " "), r.code, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, "secret-key-material") {
			p.t.Errorf("sudocode %s printed the outside file: %q %q", strings.Join(a, " "), r.stdout, r.stderr)
		}
	}
}

func sameContent(t *testing.T, path, want string) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Errorf("%s changed: %q, %v", path, got, err)
	}
}

// TestTrackerSpecBodyConfined: through the real binary, a spec's body is
// never read or written outside the project, whatever its record says
// (a pull can bring any record) and wherever a committed symlink leads;
// and create --file-path never replaces a source file or git's config.
func TestTrackerSpecBodyConfined(t *testing.T) {
	t.Parallel()
	p := newBareProj(t)
	testkit.Git(t, p.root, "init", "-q")
	p.ok("init") // registers the merge driver in git's config, which nothing may change after
	gitConfig, _ := os.ReadFile(filepath.Join(p.root, ".git", "config"))
	mainGo := filepath.Join(p.root, "main.go")
	os.WriteFile(mainGo, []byte("package main\n"), 0o644)
	outside := t.TempDir()
	key := filepath.Join(outside, "id_rsa")
	os.WriteFile(key, []byte(outsideSecret), 0o600)

	// A record edited on disk to point at ../../<outside>/id_rsa.
	id := p.js("spec", "create", "Victim", "--design", "# mine\n").str("id")
	rel, _ := filepath.Rel(p.dir, key)
	specs := trackertest.RecordFile[tracker.SpecRecord](p.dir, id)
	data, _ := os.ReadFile(specs)
	edited := strings.Replace(string(data), `"file_path":"specs/`+id+`.md"`, `"file_path":"`+filepath.ToSlash(rel)+`"`, 1)
	if edited == string(data) {
		t.Fatal("the record's file_path was not found")
	}
	os.WriteFile(specs, []byte(edited), 0o644)
	p.refused("spec", "show", id)
	p.refused("spec", "update", id, "--content", "# overwritten\n")
	sameContent(t, key, outsideSecret)
	os.WriteFile(specs, data, 0o644)

	// A committed symlink .sudocode/specs that leads outside.
	os.WriteFile(filepath.Join(outside, id+".md"), []byte(outsideSecret), 0o600)
	os.RemoveAll(filepath.Join(p.dir, "specs"))
	if err := os.Symlink(outside, filepath.Join(p.dir, "specs")); err != nil {
		t.Fatal(err)
	}
	p.refused("spec", "show", id)
	p.refused("spec", "update", id, "--content", "# overwritten\n")
	p.refused("spec", "create", "Planted", "--design", "# planted\n")
	if entries, _ := os.ReadDir(outside); len(entries) != 2 {
		t.Errorf("the outside directory holds %d files, want the 2 it had", len(entries))
	}
	sameContent(t, filepath.Join(outside, id+".md"), outsideSecret)
	os.Remove(filepath.Join(p.dir, "specs"))
	os.Mkdir(filepath.Join(p.dir, "specs"), 0o755)

	// create --file-path: a source file, git's config, an absolute path.
	plant := "[core]\n\tfsmonitor = touch pwned\n"
	for _, fp := range []string{"../main.go", "../.git/config", "../.git/hooks/x.md", filepath.Join(p.root, "abs.md")} {
		p.refused("spec", "create", "Planted", "--file-path", fp, "--design", plant)
	}
	sameContent(t, mainGo, "package main\n")
	sameContent(t, filepath.Join(p.root, ".git", "config"), string(gitConfig))
	if _, err := os.Stat(filepath.Join(p.root, "abs.md")); err == nil {
		t.Error("create wrote the absolute file_path")
	}
}
