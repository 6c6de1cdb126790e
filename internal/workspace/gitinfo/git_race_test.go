package gitinfo

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

// TestGitFilterSwapRace: a command left running in the background (as
// exec_command allows) swaps .git/config between a version without a
// filter driver and one with a clean filter, while git_status and git_diff
// run in a loop. Whatever the interleaving, the filter never writes
// outside the workspace: a filter that slips past the overrides runs in
// the sandbox.
func TestGitFilterSwapRace(t *testing.T) {
	repo := testkit.RepoOf(t, map[string]string{"a.txt": "hello\n"})
	outside, err := os.MkdirTemp("", "sudocode-filter-race-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	marker := filepath.Join(outside, "escaped")
	wstest.Write(t, repo, map[string]string{".gitattributes": "* filter=evil\n", "a.txt": "HELLO\n"})
	cfgPath := filepath.Join(repo, ".git", "config")
	clean, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	hostile := append(append([]byte(nil), clean...), []byte("[filter \"evil\"]\n\tclean = touch '"+marker+"'; cat\n")...)
	// Control: with the hostile configuration in place, plain git runs it.
	if err := os.WriteFile(cfgPath, hostile, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = testkit.GitCmd(repo, "diff").Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("control: plain git did not run the filter: the test proves nothing")
	}
	os.Remove(marker)

	stop := make(chan struct{})
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		tmp := cfgPath + ".swap"
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			content := clean
			if i%2 == 1 {
				content = hostile
			}
			if os.WriteFile(tmp, content, 0o644) == nil {
				os.Rename(tmp, cfgPath)
			}
			time.Sleep(time.Duration(i%7) * 100 * time.Microsecond)
		}
	}()
	defer func() { close(stop); <-swapped }()

	r := wstest.Open(t, repo, workspace.Open)
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < 200 && time.Now().Before(deadline); i++ {
		Status(context.Background(), r, ".", true, 100)
		Diff(context.Background(), r, DiffOptions{Unstaged: true, ContextLines: 3, MaxBytes: 10000})
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("iteration %d: a clean filter ran outside the sandbox and wrote %s", i, marker)
		}
	}
}
