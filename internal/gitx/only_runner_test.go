package gitx

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// gitExec matches a process started with git named literally; a file
// that imports os/exec and names "git" at all is suspect too (the name
// could reach exec through a variable).
var (
	gitExec     = regexp.MustCompile(`(exec\.Command(Context)?|os\.StartProcess|syscall\.Exec|exec\.LookPath)\([^)]*"git"`)
	gitLiteral  = regexp.MustCompile(`"git"`)
	importsExec = regexp.MustCompile(`"os/exec"|"syscall"`)
)

// TestOnlyGitxRunsGit: nothing in the product but this package starts
// git (tests and their support packages may, to set up repositories).
func TestOnlyGitxRunsGit(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	self, _ := filepath.Abs(".")
	var found []string
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				// This package, and the test-support packages (testkit,
				// wstest, valkeytest, …), which only tests import.
				if p == self || strings.HasSuffix(d.Name(), "test") || d.Name() == "testkit" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			src := string(b)
			rel, _ := filepath.Rel(root, p)
			if gitExec.MatchString(src) || (importsExec.MatchString(src) && gitLiteral.MatchString(src)) {
				found = append(found, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(found) > 0 {
		t.Fatalf("git is started outside internal/gitx (use gitx.Run or gitx.Output): %v", found)
	}
}
