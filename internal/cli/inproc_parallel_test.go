package cli_test

// Commands run in-process side by side each see only their own working
// directory and environment: nothing of one run leaks into another
// through the process (its working directory, its variables, a package
// variable), which is what IO.Dir and IO.Getenv are for.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
