package gitx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// Each test plants one hostile setting in the repository's own
// configuration, shows that the user's plain git runs it, and that git
// through gitx does not.

func TestFsmonitorNotRun(t *testing.T) {
	repo := newRepo(t)
	script, marker := trap(t, repo, "fsmonitor", "exit 1\n")
	testkit.Git(t, repo, "config", "core.fsmonitor", script)
	control(t, repo, marker, "status")
	for _, args := range [][]string{{"status", "--porcelain"}, {"diff"}, {"update-index", "-q", "--refresh"}, {"ls-files", "-m"}} {
		if _, err := gitOut(t, Options{Dir: repo, Locks: args[0] == "update-index"}, args...); err != nil {
			t.Fatal(err)
		}
		if exists(marker) {
			t.Fatalf("git %s ran core.fsmonitor", args[0])
		}
	}
}

func TestHooksNotRun(t *testing.T) {
	repo := newRepo(t)
	hooks := filepath.Join(repo, ".git", "trap")
	_, marker := trap(t, repo, "post-checkout", "exit 0\n")
	trap(t, repo, "reference-transaction", "exit 0\n")
	testkit.Git(t, repo, "config", "core.hooksPath", hooks)
	// The test's git turns hooks off on its command line, which outranks
	// the repository: the control names the hooks there too.
	control(t, repo, marker, "-c", "core.hooksPath="+hooks, "switch", "-q", "-c", "control")
	os.Remove(filepath.Join(repo, ".git", "markers", "reference-transaction"))
	if _, err := gitOut(t, Options{Dir: repo, Locks: true}, "switch", "-q", "-c", "other"); err != nil {
		t.Fatal(err)
	}
	if _, err := gitOut(t, Options{Dir: repo, Locks: true}, "update-ref", "refs/heads/third", "HEAD"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{marker, filepath.Join(repo, ".git", "markers", "reference-transaction")} {
		if exists(m) {
			t.Fatalf("hook ran: %s", m)
		}
	}
	// The hooks in .git/hooks are off too.
	_, marker = trap(t, repo, "post-checkout", "exit 0\n")
	if err := os.Rename(filepath.Join(hooks, "post-checkout"), filepath.Join(repo, ".git", "hooks", "post-checkout")); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, repo, "config", "--unset", "core.hooksPath")
	if _, err := gitOut(t, Options{Dir: repo, Locks: true}, "switch", "-q", "main"); err != nil {
		t.Fatal(err)
	}
	if exists(marker) {
		t.Fatal(".git/hooks/post-checkout ran")
	}
}

func TestPagerAndEditorNotRun(t *testing.T) {
	repo := newRepo(t)
	script, _ := trap(t, repo, "pager", "cat\n")
	testkit.Git(t, repo, "config", "core.pager", script)
	testkit.Git(t, repo, "config", "core.editor", script)
	if out, _ := testkit.GitCmd(repo, "var", "GIT_PAGER").CombinedOutput(); strings.TrimSpace(string(out)) != script {
		t.Fatalf("control: plain git's pager is %q", out)
	}
	t.Setenv("GIT_PAGER", script)
	t.Setenv("PAGER", script)
	t.Setenv("GIT_EDITOR", script)
	for v, want := range map[string]string{"GIT_PAGER": "cat", "GIT_EDITOR": "true"} {
		out, err := gitOut(t, Options{Dir: repo}, "var", v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(out) != want {
			t.Fatalf("git var %s = %q, want %q", v, out, want)
		}
	}
}

func TestExternalDiffAndTextconvNotRun(t *testing.T) {
	repo := newRepo(t)
	ext, extMarker := trap(t, repo, "external", "exit 0\n")
	conv, convMarker := trap(t, repo, "textconv", "cat \"$1\"\n")
	drv, drvMarker := trap(t, repo, "driver", "exit 0\n")
	write(t, filepath.Join(repo, ".gitattributes"), "*.txt diff=tc\n*.md diff=cmd\n")
	write(t, filepath.Join(repo, "b.md"), "one\n")
	testkit.Git(t, repo, "add", ".")
	testkit.Git(t, repo, "commit", "-q", "-m", "attrs")
	testkit.Git(t, repo, "config", "diff.tc.textconv", conv)
	testkit.Git(t, repo, "config", "diff.cmd.command", drv)
	write(t, filepath.Join(repo, "a.txt"), "changed\n")
	write(t, filepath.Join(repo, "b.md"), "two\n")
	control(t, repo, convMarker, "diff", "--", "a.txt")
	control(t, repo, drvMarker, "diff", "--", "b.md")
	testkit.Git(t, repo, "config", "diff.external", ext)
	control(t, repo, extMarker, "diff", "--", "a.txt")
	os.Remove(convMarker)
	for _, args := range [][]string{{"diff"}, {"diff", "--stat"}, {"log", "-p"}, {"show"}, {"diff", "HEAD"}} {
		out, err := gitOut(t, Options{Dir: repo}, args...)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{extMarker, convMarker, drvMarker} {
			if exists(m) {
				t.Fatalf("git %s ran %s", strings.Join(args, " "), filepath.Base(m))
			}
		}
		if args[0] == "diff" && len(args) == 1 && !strings.Contains(out, "+changed") {
			t.Fatalf("git diff shows no plain diff:\n%s", out)
		}
	}
}

func TestTransportHelpersNotRun(t *testing.T) {
	repo := newRepo(t)
	ssh, sshMarker := trap(t, repo, "ssh", "exit 1\n")
	cred, credMarker := trap(t, repo, "credential", "exit 0\n")
	testkit.Git(t, repo, "config", "core.sshCommand", ssh)
	testkit.Git(t, repo, "config", "credential.helper", "!"+cred)
	testkit.Git(t, repo, "remote", "add", "origin", "ssh://example.invalid/repo.git")
	control(t, repo, sshMarker, "fetch", "origin")
	if _, err := gitOut(t, Options{Dir: repo, Locks: true}, "fetch", "origin"); err == nil {
		t.Fatal("fetch succeeded")
	}
	if _, err := gitOut(t, Options{Dir: repo}, "ls-remote", "origin"); err == nil {
		t.Fatal("ls-remote succeeded")
	}
	if exists(sshMarker) {
		t.Fatal("core.sshCommand ran")
	}
	fill := "protocol=https\nhost=example.invalid\n\n"
	plainFill := testkit.GitCmd(repo, "credential", "fill")
	plainFill.Stdin = strings.NewReader(fill)
	if out, _ := plainFill.CombinedOutput(); !exists(credMarker) {
		t.Fatalf("control: plain git credential fill ran no helper: %s", out)
	}
	os.Remove(credMarker)
	gitOut(t, Options{Dir: repo, Stdin: strings.NewReader(fill)}, "credential", "fill")
	if exists(credMarker) {
		t.Fatal("credential.helper ran")
	}
}

func TestSigningProgramNotRun(t *testing.T) {
	repo := newRepo(t)
	gpg, marker := trap(t, repo, "gpg", "exit 1\n")
	testkit.Git(t, repo, "config", "gpg.program", gpg)
	testkit.Git(t, repo, "config", "commit.gpgSign", "true")
	testkit.Git(t, repo, "config", "log.showSignature", "true")
	control(t, repo, marker, "-c", "commit.gpgSign=true", "commit", "-q", "--allow-empty", "-m", "signed")
	_, err := gitOut(t, Options{Dir: repo, Locks: true, Env: []string{"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com"}}, "commit", "-q", "--allow-empty", "-m", "unsigned")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gitOut(t, Options{Dir: repo}, "log", "-1"); err != nil {
		t.Fatal(err)
	}
	if exists(marker) {
		t.Fatal("gpg.program ran")
	}
}

func TestServerEnvironmentIgnored(t *testing.T) {
	repo := newRepo(t)
	other := newRepo(t)
	script, marker := trap(t, repo, "env-fsmonitor", "exit 1\n")
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor="+script+"'")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
	t.Setenv("GIT_CONFIG_VALUE_0", script)
	write(t, filepath.Join(repo, "a.txt"), "mine\n")
	out, err := gitOut(t, Options{Dir: repo}, "status", "--porcelain")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "a.txt") || exists(marker) {
		t.Fatalf("status %q (marker %v): the server's GIT_* variables were used", out, exists(marker))
	}
	if _, err := gitOut(t, Options{Dir: repo, Env: []string{"GIT_DIR=" + other}}, "status"); err == nil {
		t.Fatal("a caller's GIT_DIR was accepted")
	}
	if _, err := gitOut(t, Options{Dir: repo}, "-c", "core.fsmonitor="+script, "status"); err == nil {
		t.Fatal("a caller's global option was accepted")
	}
}

func TestWorktreeElsewhereRefused(t *testing.T) {
	repo := newRepo(t)
	elsewhere := t.TempDir()
	write(t, filepath.Join(elsewhere, "secret.txt"), "s\n")
	testkit.Git(t, repo, "config", "core.worktree", elsewhere)
	out, err := gitOut(t, Options{Dir: repo}, "status", "--porcelain", "--untracked-files=all")
	if err == nil || strings.Contains(out, "secret") {
		t.Fatalf("git status ran in core.worktree %s: %q %v", elsewhere, out, err)
	}
}
