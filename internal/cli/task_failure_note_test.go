package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/modelsim"
	"github.com/sudocode/sudocode/internal/testkit"
)

// A failed run is recorded on its issue with the reason the model or the
// CLI gave, for every CLI: `task start` of an issue whose model call
// fails leaves the issue open with a note that holds the API's message,
// not the CLI's last line on stderr (Codex ends with "Reading prompt from
// stdin..."), and the task failed with that reason in its error's
// details, as the CLI reported it on stdout.
func TestTaskFailureNoteHoldsTheReason(t *testing.T) {
	for _, c := range realCLIs {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sim := modelsim.Start(t)
			var env []string
			for _, kv := range c.setup(t, sim) {
				if !strings.HasPrefix(kv, "SUDOCODE_") && !strings.HasPrefix(kv, "VALKEY_") {
					env = append(env, kv)
				}
			}
			repo := realCLIRepo(t)
			ok := func(args ...string) string {
				r := runMain(t, repo, env, "", args...)
				if r.code != 0 {
					t.Fatalf("sudocode %v: exit %d: %s%s", args, r.code, r.stdout, r.stderr)
				}
				return r.stdout
			}
			ok("init", "--prefix", "app")
			var is struct{ ID string }
			_ = json.Unmarshal([]byte(ok("issue", "create", "Fail now", "--json")), &is)
			testkit.Git(t, repo, "add", "-A")
			testkit.Git(t, repo, "commit", "-qm", "tracker")
			// task start runs the agent to its end.
			r := runMain(t, repo, env, "", "task", "start", is.ID, "--agent", c.name,
				"--instructions", fmt.Sprintf("Fail now.\n@sim error %d\n", c.errorStatus))
			if r.code != 1 {
				t.Fatalf("task start of a failing run: exit %d: %s%s", r.code, r.stdout, r.stderr)
			}
			var shown struct{ Status, Description string }
			_ = json.Unmarshal([]byte(ok("issue", "show", is.ID, "--json")), &shown)
			reason := fmt.Sprintf("modelsim: scripted error %d", c.errorStatus)
			if shown.Status != "open" || !strings.Contains(shown.Description, reason) {
				t.Errorf("the failed run's issue is %s, its note does not hold %q:\n%s", shown.Status, reason, shown.Description)
			}
			var list struct{ Tasks []struct{ ID string } }
			if err := json.Unmarshal([]byte(ok("task", "list", "--json")), &list); err != nil || len(list.Tasks) != 1 {
				t.Fatalf("task list: %v %+v, want the one task", err, list)
			}
			var task struct {
				Status string
				Error  *struct {
					Type    string
					Details struct{ Message string }
				}
			}
			_ = json.Unmarshal([]byte(ok("task", "show", list.Tasks[0].ID, "--json")), &task)
			if task.Status != "failed" || task.Error == nil || !strings.Contains(task.Error.Details.Message, reason) {
				t.Errorf("the task is %s with error %+v; want failed, its details' message holding %q", task.Status, task.Error, reason)
			}
		})
	}
}
