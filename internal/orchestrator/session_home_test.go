package orchestrator

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
)

const testSession = "95e58a57-876e-4ba3-afb7-fa4773deb993"

// A saved session file goes where its CLI looks for it from the new
// worktree, under a name of the CLI's own pattern only, and never through
// a link out of the CLI's directory; a file found to save must be a
// regular file there, not a link to one elsewhere.
func TestSessionHomeConfinesTheSessionFile(t *testing.T) {
	home := t.TempDir()
	cwd := "/w/work trees/task_1.x"
	h := newSessionHome(agent.ToolClaudeCode, cwd, []string{"HOME=" + home})
	if h == nil || h.root != filepath.Join(home, ".claude") {
		t.Fatalf("Claude Code's session home: %+v", h)
	}
	if p, _ := claudeProject(cwd); p != "-w-work-trees-task-1-x" {
		t.Fatalf("Claude Code's project folder of %s: %s", cwd, p)
	}
	for _, bad := range []string{"../../x.jsonl", "x.jsonl", testSession + ".json", "projects/" + testSession + ".jsonl", testSession} {
		if _, err := h.place(bad, []byte("{}\n")); err == nil {
			t.Errorf("placed a session file named %q", bad)
		}
	}
	id, err := h.place(testSession+".jsonl", []byte("{}\n"))
	if err != nil || id != testSession {
		t.Fatalf("place: %q, %v", id, err)
	}
	rel, ok := h.find(testSession)
	if b, err := h.read(rel); !ok || err != nil || string(b) != "{}\n" {
		t.Fatalf("find %q %v, read %q %v", rel, ok, b, err)
	}
	fi, err := os.Stat(filepath.Join(h.root, "projects", "-w-work-trees-task-1-x", testSession+".jsonl"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the placed file: %v, %v", fi, err)
	}

	// A link the agent left in its directory leads nowhere outside it.
	outside := t.TempDir()
	h2 := newSessionHome(agent.ToolClaudeCode, "/other", []string{"HOME=" + t.TempDir()})
	if err := os.MkdirAll(h2.root, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(h2.root, "projects")); err != nil {
		t.Fatal(err)
	}
	if _, err := h2.place(testSession+".jsonl", []byte("x")); err == nil {
		t.Fatal("placed a session file through a link out of the CLI's directory")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("wrote outside the CLI's directory: %v", entries)
	}
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(h2.root, "projects")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(h2.root, "projects", "-other"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(h2.root, "projects", "-other", testSession+".jsonl")); err != nil {
		t.Fatal(err)
	}
	if rel, ok := h2.find(testSession); ok {
		t.Fatalf("found a link to a file elsewhere as the session: %s", rel)
	}

	// A link left where the placing writes first leads to no file of the
	// CLI's: the saved session is a file of its own.
	h3 := newSessionHome(agent.ToolClaudeCode, "/third", []string{"HOME=" + t.TempDir()})
	settings := filepath.Join(h3.root, "settings.json")
	if err := os.MkdirAll(filepath.Join(h3.root, "projects", "-third"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"mine":true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(settings, filepath.Join(h3.root, "projects", "-third", testSession+".jsonl.sudocode-new")); err != nil {
		t.Fatal(err)
	}
	if _, err := h3.place(testSession+".jsonl", []byte("session\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(settings); string(b) != `{"mine":true}` {
		t.Fatalf("placing the session wrote the CLI's settings through a link: %q", b)
	}
	if rel, ok := h3.find(testSession); !ok || rel != "projects/-third/"+testSession+".jsonl" {
		t.Fatalf("the placed session: %q %v", rel, ok)
	}
}

// Codex's session files go in the folder of the day their name says.
func TestSessionHomeOfCodex(t *testing.T) {
	codexHome := t.TempDir()
	h := newSessionHome(agent.ToolCodex, "/w", []string{"HOME=" + t.TempDir(), "CODEX_HOME=" + codexHome})
	name := "rollout-2026-11-29T23-55-01-" + testSession + ".jsonl"
	for _, bad := range []string{"rollout-2026-11-29-" + testSession + ".jsonl", testSession + ".jsonl", "rollout-2026-11-29T23-55-01-../x.jsonl"} {
		if _, err := h.place(bad, nil); err == nil {
			t.Errorf("placed a session file named %q", bad)
		}
	}
	if id, err := h.place(name, []byte("{}\n")); err != nil || id != testSession {
		t.Fatalf("place: %q, %v", id, err)
	}
	if rel, ok := h.find(testSession); !ok || rel != "sessions/2026/11/29/"+name {
		t.Fatalf("find: %q, %v", rel, ok)
	}
	if newSessionHome(agent.ToolGemini, "/w", []string{"HOME=/h"}) != nil || newSessionHome(agent.ToolCodex, "/w", nil) != nil {
		t.Fatal("a session home for Gemini CLI, or without a HOME")
	}
}
