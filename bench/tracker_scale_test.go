package bench_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackergen"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// TestTrackerWritersAtScale runs, on the 100,000-issue repository, 16
// writer processes at once, each making TRACKER_WRITES mutations in turn
// (issue create, update, link, feedback add; default 10, so that CI stays
// short: TRACKER_WRITES=200 is the full load), with a reader asking ready
// meanwhile; then writers killed by SIGKILL at random moments. Nothing
// acknowledged is lost, every file stays valid and sorted, and a cache
// rebuilt from the files agrees. The throughput and the reader's waits are
// logged.
func TestTrackerWritersAtScale(t *testing.T) {
	bin := testkit.Binary(t, "./cmd/sudocode")
	root := t.TempDir()
	if err := trackergen.Generate(root, trackergen.Large); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command(bin, append(args, "--json")...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "SUDOCODE_ACTOR=scale")
		return cmd.Output()
	}
	if out, err := run("status"); err != nil { // the cache, from the files
		t.Fatalf("status: %v %s", err, out)
	}
	dir := filepath.Join(root, ".sudocode")
	specs := trackertest.ReadRecords[tracker.SpecRecord](t, dir)
	spec := specs[0].ID
	base := trackertest.IDs(trackertest.ReadRecords[tracker.IssueRecord](t, dir))

	writes := 10
	if n, err := strconv.Atoi(os.Getenv("TRACKER_WRITES")); err == nil && n > 0 {
		writes = n
	}
	const writers = 16
	var mu sync.Mutex
	titles := map[string]string{} // created issue → its last acknowledged title
	links := map[string]bool{}    // "from to"
	feedback := 0
	stop := make(chan struct{})
	var readerWaits []time.Duration
	var reader sync.WaitGroup
	reader.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			t0 := time.Now()
			if out, err := run("ready"); err != nil {
				t.Errorf("ready during the writes: %v %s", err, out)
				return
			}
			readerWaits = append(readerWaits, time.Since(t0))
		}
	})
	start := time.Now()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			var own string
			for i := range writes {
				var args []string
				switch {
				case own == "" || i%4 == 0:
					args = []string{"issue", "create", fmt.Sprintf("writer %d item %d", w, i)}
				case i%4 == 1:
					args = []string{"issue", "update", own, "--title", fmt.Sprintf("writer %d item %d, updated", w, i)}
				case i%4 == 2:
					args = []string{"link", own, base[rng.IntN(len(base))], "--type", "depends-on"}
				default:
					args = []string{"feedback", "add", own, spec, "--content", fmt.Sprintf("writer %d note %d", w, i), "--line", "3"}
				}
				out, err := run(args...)
				if err != nil {
					t.Errorf("%v: %v %s", args, err, out)
					continue
				}
				mu.Lock()
				switch args[0] + " " + args[1] {
				case "issue create":
					var r struct{ ID string }
					json.Unmarshal(out, &r)
					own, titles[r.ID] = r.ID, args[2]
				case "issue update":
					titles[own] = args[4]
				case "link " + own:
					links[own+" "+args[2]] = true
				default:
					feedback++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stop)
	reader.Wait()
	t.Logf("%d writers × %d mutations at 100,000 issues: %v, %.1f mutations per second (target ≥ 200)",
		writers, writes, elapsed.Round(time.Millisecond), float64(writers*writes)/elapsed.Seconds())
	if len(readerWaits) > 0 {
		slices.Sort(readerWaits)
		t.Logf("ready during the writes: %d calls, median %v, slowest %v", len(readerWaits), readerWaits[len(readerWaits)/2], readerWaits[len(readerWaits)-1])
	}

	// Killed writers: each change is whole or absent. The kills land
	// within the time a create takes at this size (most of it the process
	// starting), so that most are killed before they finish.
	var took []time.Duration
	for i := range 5 {
		t0 := time.Now()
		out, err := run("issue", "create", fmt.Sprint("timing ", i))
		if err != nil {
			t.Fatalf("issue create: %v %s", err, out)
		}
		took = append(took, time.Since(t0))
		var r struct{ ID string }
		json.Unmarshal(out, &r)
		titles[r.ID] = fmt.Sprint("timing ", i)
	}
	slices.Sort(took)
	median := took[len(took)/2]
	killed := 0
	for i := range 12 {
		cmd := exec.Command(bin, "issue", "create", fmt.Sprint("killed ", i), "--json")
		cmd.Dir = root
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(median/4 + rand.N(median*3/4))
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
			killed++
		}
	}
	t.Logf("%d of 12 writers killed before they finished (a create takes %v)", killed, median.Round(time.Millisecond))
	if killed < 3 {
		t.Errorf("only %d of 12 writers were killed before they finished: the kills test little", killed)
	}

	// The files: valid, sorted, holding every acknowledged change.
	issues := trackertest.ReadRecords[tracker.IssueRecord](t, dir)
	fbs := trackertest.ReadRecords[tracker.Feedback](t, dir)
	byID := map[string]tracker.IssueRecord{}
	for _, r := range issues {
		byID[r.ID] = r
	}
	for id, title := range titles {
		r, ok := byID[id]
		if !ok {
			t.Errorf("issue %s (%q) was acknowledged and is lost", id, title)
			continue
		}
		if r.Title != title {
			t.Errorf("issue %s: title %q, want the last acknowledged %q", id, r.Title, title)
		}
	}
	for l := range links {
		var from, to string
		fmt.Sscan(l, &from, &to)
		found := false
		for _, rel := range byID[from].Relationships {
			found = found || rel.To == to && rel.Type == tracker.RelDependsOn
		}
		if !found {
			t.Errorf("link %s was acknowledged and is lost", l)
		}
	}
	if len(fbs) != feedback {
		t.Errorf("%d feedback in the files, %d acknowledged", len(fbs), feedback)
	}

	// The cache, rebuilt from the files, agrees with them.
	for _, f := range []string{"cache.db", "cache.db-wal", "cache.db-shm"} {
		os.Remove(filepath.Join(dir, f))
	}
	out, err := run("stats")
	if err != nil {
		t.Fatalf("stats after the rebuild: %v %s", err, out)
	}
	var st tracker.Stats
	json.Unmarshal(out, &st)
	if st.Issues.Total != len(issues) {
		t.Errorf("the rebuilt cache counts %d issues, the files hold %d", st.Issues.Total, len(issues))
	}
}
