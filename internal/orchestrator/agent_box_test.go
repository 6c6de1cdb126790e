//go:build linux

package orchestrator

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/testkit"
)

// logLines are the log lines a task's command printed.
func logLines(t *testing.T, f *fixture, id string) string {
	t.Helper()
	evs, err := f.o.Logs(context.Background(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range evs {
		if e.Event.Kind == agent.KindLog {
			b.WriteString(e.Event.Text + "\n")
		}
	}
	return b.String()
}

// A COMMAND runs any command as the agent: it once read whatever the user
// could (a key beside the project, an ssh-agent's socket) and could plant
// a hook in the repository's git directory, which the user's own next
// commit would run. In its box it sees its worktree, which it writes and
// commits, and nothing else of the user's.
func TestCommandTaskRunsInTheBox(t *testing.T) {
	repo := testkit.Repo(t)
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "id_rsa")
	os.WriteFile(secret, []byte("KEY-MATERIAL\n"), 0o600)
	sock := filepath.Join(secretDir, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f := newFixture(t, repo)
	task := f.create(t, CreateInput{Agent: "COMMAND", Description: "Reach out", Config: shell(
		`cat ` + secret + ` 2>/dev/null || echo "no key"; ` +
			`[ -e ` + sock + ` ] && echo "socket seen" || echo "no socket"; ` +
			`[ -e ` + repo + `/README ] && echo "checkout seen" || echo "no checkout"; ` +
			`git rev-parse --git-common-dir > common.txt; common=$(cat common.txt); rm common.txt; ` +
			`echo 'touch pwned' > "$common/hooks/pre-commit" 2>/dev/null && echo "hook planted"; ` +
			`git config --file "$common/config" core.hooksPath /tmp 2>/dev/null && echo "config changed"; ` +
			`echo box > boxed.txt && git add boxed.txt && ` + agentCommit + ` "from the box" && echo committed`)})
	task = f.wait(t, task.ID)
	out := logLines(t, f, task.ID)
	for _, want := range []string{"no key\n", "no socket\n", "no checkout\n", "committed\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the task's output:\n%s", want, out)
		}
	}
	if strings.Contains(out, "KEY-MATERIAL") || strings.Contains(out, "hook planted") || strings.Contains(out, "config changed") {
		t.Fatalf("the task read the key:\n%s", out)
	}
	if task.Status != StatusCompleted {
		t.Fatalf("task %+v\n%s", task, out)
	}
	if got := testkit.Git(t, repo, "show", task.Branch+":boxed.txt"); got != "box" {
		t.Fatalf("the branch holds %q", got)
	}
}

// A COMMAND's program is granted as itself: one inside a node_modules
// tree does not open the project around it (a key beside it included).
func TestCommandProgramGrantedAlone(t *testing.T) {
	repo := testkit.Repo(t)
	project := t.TempDir()
	os.WriteFile(filepath.Join(project, ".env"), []byte("SECRET-ENV\n"), 0o600)
	tool := filepath.Join(project, "node_modules", ".bin", "tool")
	os.MkdirAll(filepath.Dir(tool), 0o755)
	os.WriteFile(tool, []byte("#!/bin/sh\ncat "+filepath.Join(project, ".env")+" 2>/dev/null || echo \"no env\"\n"), 0o755)
	f := newFixture(t, repo)
	raw, _ := json.Marshal(map[string]any{"command": []string{tool}})
	task := f.wait(t, f.create(t, CreateInput{Agent: "COMMAND", Description: "Run a tool", Config: raw}).ID)
	out := logLines(t, f, task.ID)
	if strings.Contains(out, "SECRET") || !strings.Contains(out, "no env") {
		t.Fatalf("the tool's project was granted with it:\n%s", out)
	}
}
