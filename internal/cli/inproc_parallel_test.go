package cli_test

// Commands run in-process side by side each see only their own working
// directory and environment: nothing of one run leaks into another
// through the process (its working directory, its variables, a package
// variable), which is what IO.Dir and IO.Env are for.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
)

// side is one of the two runs: a project, an actor and a ruleset store.
type side struct {
	name string
	p    *proj
	data string // XDG_DATA_HOME: the default ruleset store is under it
}

func TestParallelRunsKeepTheirOwnDirectoryAndEnvironment(t *testing.T) {
	t.Parallel()
	var sides []*side
	for _, name := range []string{"ann", "bob"} {
		data := t.TempDir()
		p := newProj(t, "SUDOCODE_ACTOR="+name, "XDG_DATA_HOME="+data)
		sides = append(sides, &side{name: name, p: p, data: data})
	}
	const each = 8
	var wg sync.WaitGroup
	for _, s := range sides {
		wg.Go(func() {
			for i := range each {
				// From the project's directory, and from elsewhere through
				// SUDOCODE_WORKING_DIR, in turn.
				dir, env := s.p.root, s.p.env
				if i%2 == 1 {
					dir, env = t.TempDir(), append(append([]string{}, s.p.env...), "SUDOCODE_WORKING_DIR="+s.p.root)
				}
				title := fmt.Sprintf("%s's issue %d", s.name, i)
				if r := runMain(t, dir, env, "", "issue", "create", title, "--json"); r.code != 0 {
					t.Errorf("%s: issue create: exit %d, stderr %q", s.name, r.code, r.stderr)
				}
				rule := fmt.Sprintf("%s_rule_%d", s.name, i)
				if r := runMain(t, dir, env, "# "+s.name, "rulesets", "put", rule, "-d", s.name, "-f", "-"); r.code != 0 {
					t.Errorf("%s: rulesets put: exit %d, stderr %q", s.name, r.code, r.stderr)
				}
			}
		})
	}
	wg.Wait()

	for _, s := range sides {
		issues := s.p.js("issue", "list", "--limit", "100").list("issues")
		if len(issues) != each {
			t.Errorf("%s's tracker holds %d issues, want %d", s.name, len(issues), each)
		}
		for _, is := range issues {
			id := is.str("id")
			d := s.p.js("issue", "show", id)
			if title := d.str("title"); !strings.HasPrefix(title, s.name+"'s ") {
				t.Errorf("%s's tracker holds %q", s.name, title)
			}
			d.eq(s.name, "created_by")
		}
		var rules []struct{ Name, Description string }
		out := s.p.ok("rulesets", "list", "--json")
		if err := json.Unmarshal([]byte(out), &rules); err != nil {
			t.Fatalf("%s: rulesets list --json: %v: %s", s.name, err, out)
		}
		if len(rules) != each {
			t.Errorf("%s's ruleset store holds %d rulesets, want %d", s.name, len(rules), each)
		}
		for _, r := range rules {
			if !strings.HasPrefix(r.Name, s.name+"_") || r.Description != s.name {
				t.Errorf("%s's ruleset store holds %s (%q)", s.name, r.Name, r.Description)
			}
		}
		if _, err := os.Stat(filepath.Join(s.data, "sudocode", "rulesets", "rulesets.db")); err != nil {
			t.Errorf("%s's rulesets are not under its XDG_DATA_HOME: %v", s.name, err)
		}
	}
}

// Task commands run in-process side by side keep to their own
// environment too: each task's worktree, and the private home its command
// runs in, are under its own run's XDG_STATE_HOME, and its agent commits
// in its own repository.
func TestParallelTasksKeepTheirOwnStateDirectory(t *testing.T) {
	t.Parallel()
	type taskSide struct {
		name, dir, state, issue string
		env                     []string
		worktree, branch        string
	}
	var sides []*taskSide
	for _, name := range []string{"ann", "bob"} {
		dir, env, first, _ := taskRepo(t)
		state := t.TempDir()
		sides = append(sides, &taskSide{name: name, dir: dir, state: state, issue: first, env: append(env, "XDG_STATE_HOME="+state)})
	}
	var wg sync.WaitGroup
	for _, s := range sides {
		wg.Go(func() {
			commit := "echo " + s.name + " > who.txt && git add who.txt && git commit -qm " + s.name
			r := runMain(t, s.dir, s.env, "", "task", "start", s.issue, "--agent", "command", "--command", commit, "--json")
			if r.code != 0 {
				t.Errorf("%s: task start: exit %d: %s%s", s.name, r.code, r.stdout, r.stderr)
				return
			}
			var list struct {
				Tasks []struct {
					Status, Branch string
					WorktreePath   string `json:"worktree_path"`
				}
			}
			r = runMain(t, s.dir, s.env, "", "task", "list", "--json")
			if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Tasks) != 1 {
				t.Errorf("%s: task list: %v %s%s", s.name, err, r.stdout, r.stderr)
				return
			}
			task := list.Tasks[0]
			if task.Status != "completed" {
				t.Errorf("%s's task is %s", s.name, task.Status)
			}
			s.worktree, s.branch = task.WorktreePath, task.Branch
		})
	}
	wg.Wait()

	for _, s := range sides {
		if s.branch == "" {
			continue
		}
		if who := testkit.Git(t, s.dir, "show", s.branch+":who.txt"); strings.TrimSpace(who) != s.name {
			t.Errorf("%s's task branch holds who.txt %q", s.name, who)
		}
		if rel, err := filepath.Rel(filepath.Join(s.state, "sudocode", "worktrees"), s.worktree); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("%s's task worktree %s is not under its XDG_STATE_HOME %s", s.name, s.worktree, s.state)
		}
		if _, err := os.Stat(filepath.Join(s.state, "sudocode", "agent-commands")); err != nil {
			t.Errorf("%s's command did not run in a private home under its XDG_STATE_HOME: %v", s.name, err)
		}
	}
}
