package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentProcessesShareTheEmbeddedStore runs two loops of
// "sudocode rulesets put" processes at once on one embedded store, starting
// from an empty directory: each process puts a name of its own, then one
// name that every process puts. Nothing is lost, nothing fails, and the
// shared name is one ruleset.
func TestConcurrentProcessesShareTheEmbeddedStore(t *testing.T) {
	t.Parallel()
	const loops, perLoop = 2, 40
	l := newLibrary(t)

	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	for w := range loops {
		wg.Go(func() {
			for i := range perLoop {
				for _, args := range [][]string{
					{"put", fmt.Sprintf("loop%d_rule%d", w, i), "-d", fmt.Sprintf("rule %d of loop %d", i, w), "-t", fmt.Sprintf("loop%d", w)},
					{"put", "shared_rule", "-d", fmt.Sprintf("last put by loop %d, rule %d", w, i)},
				} {
					r := l.run(fmt.Sprintf("# rules %d/%d\n", w, i), append(args, "-f", "-")...)
					want := fmt.Sprintf("Successfully upserted ruleset '%s'\n", args[1])
					if r.code != 0 || r.stdout != want {
						mu.Lock()
						failures = append(failures, fmt.Sprintf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr))
						mu.Unlock()
					}
				}
			}
		})
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}

	var items []struct {
		Name         string   `json:"name"`
		Description  string   `json:"description"`
		Tags         []string `json:"tags"`
		CreatedAt    string   `json:"created_at"`
		LastModified string   `json:"last_modified"`
	}
	if err := json.Unmarshal([]byte(l.ok("", "list", "--json")), &items); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, it := range items {
		count[it.Name]++
		if it.Name == "shared_rule" {
			if !strings.HasPrefix(it.Description, "last put by loop ") || len(it.Tags) != 0 {
				t.Errorf("shared_rule = %+v", it)
			}
			if it.CreatedAt > it.LastModified {
				t.Errorf("shared_rule was created at %s, after its last modification at %s", it.CreatedAt, it.LastModified)
			}
		}
	}
	if len(items) != loops*perLoop+1 {
		t.Errorf("the store holds %d rulesets, want %d", len(items), loops*perLoop+1)
	}
	if count["shared_rule"] != 1 {
		t.Errorf("shared_rule is listed %d times, want once", count["shared_rule"])
	}
	for w := range loops {
		for i := range perLoop {
			if name := fmt.Sprintf("loop%d_rule%d", w, i); count[name] != 1 {
				t.Errorf("%s is listed %d times, want once", name, count[name])
			}
		}
	}
	l.ok("---\nname: loop1_rule7\ndescription: rule 7 of loop 1\ntags: [loop1]\ncreated_at: TIME\nlast_modified: TIME\n---\n\n# rules 1/7\n\n",
		"get", "loop1_rule7")
}

// TestConcurrentProcessesCreateTheEmbeddedStore starts several processes at
// the same moment on an empty store directory, several times over: the one
// that creates the database must not make the others fail.
func TestConcurrentProcessesCreateTheEmbeddedStore(t *testing.T) {
	t.Parallel()
	const rounds, procs = 10, 4
	env := childEnv(t)
	for round := range rounds {
		store := t.TempDir()
		start := make(chan struct{})
		results := make([]result, procs)
		var wg sync.WaitGroup
		for p := range procs {
			wg.Go(func() {
				<-start
				results[p] = runCmd(t, env, "# r\n", sudocodeBin, "rulesets", "put", fmt.Sprintf("rule_%d", p), "-d", "d", "-f", "-", "--store", store)
			})
		}
		close(start)
		wg.Wait()
		for p, r := range results {
			if r.code != 0 {
				t.Errorf("round %d, process %d: exit %d, stderr %q", round, p, r.code, r.stderr)
			}
		}
		r := runCmd(t, env, "", sudocodeBin, "rulesets", "list", "--json", "--store", store)
		var items []map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &items); err != nil || len(items) != procs {
			t.Errorf("round %d: %d rulesets (%v), want %d", round, len(items), err, procs)
		}
	}
}
