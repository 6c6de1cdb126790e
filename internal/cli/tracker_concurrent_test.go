package cli_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// checkRecords reads every shard file of T's kind in the tracker
// directory dir strictly and checks each is canonical (sorted by id, a
// record a line, a final newline) and holds only its own ids; it returns
// the records' ids.
func checkRecords[T trackertest.Record](t *testing.T, dir string) []string {
	t.Helper()
	return trackertest.IDs(trackertest.ReadRecords[T](t, dir))
}

// TestTrackerConcurrentWriters runs 8 loops at once, each running 60
// sudocode processes one after another: issue create, update, link, close
// and feedback add. Every command succeeds, every change is in the files,
// the files stay canonical, and the cache agrees with them, also when
// rebuilt from them. (bench's TestTrackerWritersAtScale runs 16 such
// loops, and 16 MCP servers, on 100,000 issues.)
func TestTrackerConcurrentWriters(t *testing.T) {
	const loops, perLoop = 8, 60
	p := newProj(t)
	var body strings.Builder
	body.WriteString("# Shared spec\n")
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&body, "line %d of the shared spec\n", i+1)
	}
	spec := p.js("spec", "create", "Shared", "--design", body.String()).str("id")

	type state struct {
		own      []string          // issues created, in order
		titles   map[string]string // id → the last title given
		prio     map[string]int
		closed   map[string]bool
		links    map[string]bool // "from type to"
		feedback int
		failures []string
	}
	states := make([]*state, loops)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range loops {
		s := &state{titles: map[string]string{}, prio: map[string]int{}, closed: map[string]bool{}, links: map[string]bool{}}
		states[w] = s
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			nextClose := 0
			for i := range perLoop {
				var args []string
				last := ""
				if len(s.own) > 0 {
					last = s.own[len(s.own)-1]
				}
				switch i % 5 {
				case 0:
					args = []string{"issue", "create", fmt.Sprintf("loop %d issue %d", w, i), "-p", fmt.Sprint(i % 5)}
				case 1:
					args = []string{"issue", "update", last, "--title", fmt.Sprintf("loop %d issue %d, updated", w, i-1), "-p", fmt.Sprint(rng.IntN(5))}
				case 2:
					if len(s.own) < 2 {
						args = []string{"link", last, spec, "--type", "implements"}
					} else {
						// The newer waits for an older one: never a cycle.
						args = []string{"link", last, s.own[rng.IntN(len(s.own)-1)], "--type", []string{"blocks", "related", "depends-on"}[rng.IntN(3)]}
					}
				case 3:
					target := last
					if nextClose < len(s.own)-1 {
						target = s.own[nextClose]
						nextClose++
					}
					args = []string{"issue", "close", target}
				case 4:
					args = []string{"feedback", "add", last, spec, "--content", fmt.Sprintf("loop %d note %d", w, i), "--line", fmt.Sprint(1 + rng.IntN(40))}
				}
				r := runBinAt(t, p.root, p.env, "", append(args, "--json")...)
				if r.code != 0 {
					s.failures = append(s.failures, fmt.Sprintf("loop %d: %v: exit %d, stderr %q", w, args, r.code, r.stderr))
					continue
				}
				var out map[string]any
				json.Unmarshal([]byte(r.stdout), &out)
				switch i % 5 {
				case 0:
					id, _ := out["id"].(string)
					s.own = append(s.own, id)
					s.titles[id], s.prio[id] = args[2], i%5
				case 1:
					s.titles[last] = args[4]
					var pr int
					fmt.Sscan(args[6], &pr)
					s.prio[last] = pr
				case 2:
					s.links[args[1]+" "+args[4]+" "+args[2]] = true
				case 3:
					s.closed[args[2]] = true
				case 4:
					s.feedback++
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d processes in %v (%.1f ms each, %.0f per second)", loops*perLoop, elapsed.Round(time.Millisecond),
		float64(elapsed.Milliseconds())/float64(loops*perLoop), float64(loops*perLoop)/elapsed.Seconds())
	for _, s := range states {
		for _, f := range s.failures {
			t.Error(f)
		}
	}

	// The files: canonical, complete.
	issueIDs := checkRecords[tracker.IssueRecord](t, p.dir)
	specIDs := checkRecords[tracker.SpecRecord](t, p.dir)
	fbIDs := checkRecords[tracker.Feedback](t, p.dir)
	inFile := map[string]bool{}
	for _, id := range issueIDs {
		inFile[id] = true
	}
	created, nFeedback, nLinks := 0, 0, 0
	wantTitle, wantPrio, wantClosed := map[string]string{}, map[string]int{}, map[string]bool{}
	for _, s := range states {
		created += len(s.own)
		nFeedback += s.feedback
		nLinks += len(s.links)
		for _, id := range s.own {
			if !inFile[id] {
				t.Errorf("issue %s was created but is not in the issue files", id)
			}
			wantTitle[id], wantPrio[id] = s.titles[id], s.prio[id]
		}
		for id := range s.closed {
			wantClosed[id] = true
		}
	}
	if created != loops*perLoop/5 || len(issueIDs) != created || len(specIDs) != 1 || len(fbIDs) != nFeedback || nFeedback != loops*perLoop/5 {
		t.Errorf("created %d issues and %d feedback; the files hold %d issues, %d specs, %d feedback",
			created, nFeedback, len(issueIDs), len(specIDs), len(fbIDs))
	}

	// The cache agrees with the files, record for record.
	list := p.js("issue", "list", "--all", "--limit", "100000")
	if n := list.num("total"); n != len(issueIDs) || len(list.list("issues")) != n {
		t.Errorf("issue list: total %d, %d items; the issue files hold %d", n, len(list.list("issues")), len(issueIDs))
	}
	for _, it := range list.list("issues") {
		id := it.str("id")
		if it.str("title") != wantTitle[id] || it.num("priority") != wantPrio[id] || (it.str("status") == "closed") != wantClosed[id] {
			t.Errorf("issue %s: title %q priority %d status %s; want %q, %d, closed %v",
				id, it.str("title"), it.num("priority"), it.str("status"), wantTitle[id], wantPrio[id], wantClosed[id])
		}
	}
	if n := p.js("feedback", "list", "--limit", "100000").num("total"); n != len(fbIDs) {
		t.Errorf("feedback list total %d; the feedback files hold %d", n, len(fbIDs))
	}
	stats := p.js("stats")
	stats.eq(len(wantClosed), "issues", "by_status", "closed")
	stats.eq(nLinks, "relationships", "total")

	// Rebuilt from the files, the cache shows the same, and no file changes.
	views := func() string {
		var b strings.Builder
		for _, args := range [][]string{
			{"issue", "list", "--all", "--limit", "100000"}, {"feedback", "list", "--limit", "100000"}, {"spec", "list"},
			{"ready", "--limit", "100000", "--specs", "--issues"}, {"blocked", "--limit", "100000"}, {"status", "--verbose"},
			{"spec", "show", spec}, {"issue", "show", issueIDs[0]}, {"issue", "show", issueIDs[len(issueIDs)-1]},
		} {
			b.Write(p.js(args...).raw)
		}
		return b.String()
	}
	before, files := views(), p.snapshot()
	for _, f := range []string{"cache.db", "cache.db-wal", "cache.db-shm"} {
		os.Remove(filepath.Join(p.dir, f))
	}
	if after := views(); after != before {
		t.Errorf("the listings differ once the cache is rebuilt from the files")
	}
	sameFiles(t, "rebuilding the cache", files, p.snapshot())
}

// TestTrackerKilledWriters kills writer processes at random moments, 200
// times: no JSONL file or spec body is ever truncated or invalid, every
// spec has its body, and the next command works on what is left.
func TestTrackerKilledWriters(t *testing.T) {
	const loops, kills = 2, 100
	p := newProj(t)
	design := func(title string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n", title)
		for i := range 200 {
			fmt.Fprintf(&b, "Line %d of %s, long enough to make the body a few pages.\n", i, title)
		}
		fmt.Fprintf(&b, "end of %s\n", title)
		return b.String()
	}
	seedIssue := p.js("issue", "create", "Seed").str("id")
	seedSpec := p.js("spec", "create", "seed spec", "--design", design("seed spec")).str("id")

	// How long a change takes: the kills land within that.
	var took []time.Duration
	for i := range 8 {
		t0 := time.Now()
		p.js("issue", "create", fmt.Sprint("timing ", i))
		took = append(took, time.Since(t0))
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	// Most of a change is the process starting; aim the kills at the rest.
	median := took[len(took)/2]
	from, window := median*2/5, median

	var mu sync.Mutex
	killed, finished := 0, 0
	var wg sync.WaitGroup
	for w := range loops {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 11))
			// The machine's load changes how long a change takes: the
			// window follows it, shrinking after a process finished
			// first and growing after one was killed.
			lo, span := from, window
			for i := range kills {
				title := fmt.Sprintf("loop %d item %d", w, i)
				var args []string
				switch i % 4 {
				case 0:
					args = []string{"issue", "create", title, "-d", strings.Repeat("words ", 50)}
				case 1:
					args = []string{"spec", "create", title, "--design", design(title)}
				case 2:
					args = []string{"feedback", "add", seedIssue, seedSpec, "--content", title, "--line", fmt.Sprint(1 + rng.IntN(200))}
				case 3:
					args = []string{"spec", "update", seedSpec, "--content", design("seed spec") + title + "\n" + "end of seed spec\n"}
				}
				cmd := exec.Command(sudocodeBin, append(args, "--json")...)
				cmd.Dir, cmd.Env = p.root, p.env
				if err := cmd.Start(); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(lo + time.Duration(rng.Int64N(int64(span))))
				cmd.Process.Signal(syscall.SIGKILL)
				cmd.Wait()
				ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
				mu.Lock()
				if ws.Signaled() {
					killed++
					lo, span = min(lo*11/10, from), min(span*11/10, window)
				} else {
					lo, span = lo*4/5, max(span*4/5, time.Millisecond)
					finished++
					if !cmd.ProcessState.Success() {
						t.Errorf("%v (not killed) failed: %v", args, cmd.ProcessState)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("kills %v to %v after the start (a change takes %v): %d processes killed, %d finished first", from, from+window, median, killed, finished)
	if killed < loops*kills/4 {
		t.Errorf("only %d of %d processes were killed before they finished", killed, loops*kills)
	}

	// The files are whole.
	issueIDs := checkRecords[tracker.IssueRecord](t, p.dir)
	specs := trackertest.ReadRecords[tracker.SpecRecord](t, p.dir)
	fbIDs := checkRecords[tracker.Feedback](t, p.dir)
	for _, s := range specs {
		b, err := os.ReadFile(filepath.Join(p.dir, filepath.FromSlash(s.FilePath)))
		if err != nil {
			t.Errorf("spec %s has no body: %v", s.ID, err)
			continue
		}
		if !strings.HasPrefix(string(b), "# "+s.Title+"\n") || !strings.HasSuffix(string(b), "end of "+s.Title+"\n") {
			t.Errorf("spec %s's body is cut: %d bytes, ending %q", s.ID, len(b), b[max(0, len(b)-40):])
		}
	}
	var leftovers []string
	filepath.WalkDir(p.dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			leftovers = append(leftovers, d.Name())
		}
		return nil
	})
	t.Logf("%d issues, %d specs, %d feedback survive; %d temporary files were left by killed processes (ignored by .gitignore)",
		len(issueIDs), len(specs), len(fbIDs), len(leftovers))

	// The next commands work, and see what the files hold.
	if n := p.js("issue", "list", "--all", "--limit", "100000").num("total"); n != len(issueIDs) {
		t.Errorf("issue list: %d issues; the issue files hold %d", n, len(issueIDs))
	}
	if n := p.js("spec", "list", "--limit", "100000").num("total"); n != len(specs) {
		t.Errorf("spec list: %d specs; the spec files hold %d", n, len(specs))
	}
	if n := p.js("feedback", "list", "--limit", "100000").num("total"); n != len(fbIDs) {
		t.Errorf("feedback list: %d; the feedback files hold %d", n, len(fbIDs))
	}
	p.js("spec", "show", seedSpec)
	id := p.js("issue", "create", "After the kills").str("id")
	p.js("feedback", "add", id, seedSpec, "--content", "still works", "--text", "end of seed spec")
	p.js("spec", "update", seedSpec, "--content", design("seed spec"))
	checkRecords[tracker.IssueRecord](t, p.dir)
	checkRecords[tracker.Feedback](t, p.dir)
}
