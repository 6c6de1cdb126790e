package bench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// bigTrackerRepo makes a git repository (testkit.Repo) of files files (100 per
// directory) with a tracker, all committed, and returns its directory and
// the environment the binary runs with in it.
func bigTrackerRepo(b *testing.B, bin string, files int) (dir string, env []string) {
	b.Helper()
	dir = testkit.Repo(b)
	for i := range files {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		body := fmt.Sprintf("package pkg%03d\n\n// File %d of the benchmark repository.\nfunc F%d() int { return %d }\n", i/100, i, i, i)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.go", i%100)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir, trackerRepo(b, bin, dir, b.TempDir())
}

// agentTimes are the wall-clock times a COMMAND agent prints, in
// nanoseconds since the epoch: when it starts, and after its last change.
var agentTimes = regexp.MustCompile(`agent-(start|end) ([0-9]+)`)

// BenchmarkLoop measures the loop's own overhead, apart from the agent's
// time, through the binary on a 10,000-file repository, as a user runs
// it: an issue, `sudocode task start` with a COMMAND agent that commits a
// one-file change, then `sudocode task merge`. Each round reports
//
//   - start-p50-ms: from running task start to the agent's first command
//     (the moment a real agent would send its first model request);
//   - done-p50-ms: from the agent's last output to task start returning
//     with the task's report (the task is then finished and reported);
//   - merge-p50-ms: the whole task merge process;
//
// and the peers, in the same repository (p50-ms): peer_git_merge, a bare
// `git merge --no-ff` of a one-file branch, and peer_git_worktree_add, a
// bare `git worktree add -b` (the checkout a task start without a warm
// worktree includes). The agent prints its times with date(1), so both
// sides read the same clock.
func BenchmarkLoop(b *testing.B) {
	bin := testkit.Binary(b, "./cmd/sudocode")
	dir, env := bigTrackerRepo(b, bin, 10_000)
	round := 0 // names stay new across the runs of a sub-benchmark
	b.Run("task", func(b *testing.B) {
		var start, done, merge []time.Duration
		for range b.N {
			round++
			i := round
			issue := jsonID(b, sudocodeIn(b, bin, dir, env, "issue", "create", fmt.Sprintf("Loop %d", i), "--json"))
			file := fmt.Sprintf("loop%d.txt", i)
			command := `echo "agent-start $(date +%s%N)"; echo ` + strconv.Itoa(i) + ` > ` + file +
				` && git add ` + file + ` && git commit -qm ` + file + `; echo "agent-end $(date +%s%N)"`
			t0 := time.Now()
			out := sudocodeIn(b, bin, dir, env, "task", "start", issue, "--agent", "command", "--command", command)
			t2 := time.Now()
			times := map[string]time.Time{}
			for _, m := range agentTimes.FindAllSubmatch(out, -1) {
				ns, _ := strconv.ParseInt(string(m[2]), 10, 64)
				times[string(m[1])] = time.Unix(0, ns)
			}
			if len(times) != 2 {
				b.Fatalf("no agent times in:\n%s", out)
			}
			start = append(start, times["start"].Sub(t0))
			done = append(done, t2.Sub(times["end"]))
			id := taskIDIn(b, out)
			t3 := time.Now()
			sudocodeIn(b, bin, dir, env, "task", "merge", id)
			merge = append(merge, time.Since(t3))
		}
		b.ReportMetric(p50ms(start), "start-p50-ms")
		b.ReportMetric(p50ms(done), "done-p50-ms")
		b.ReportMetric(p50ms(merge), "merge-p50-ms")
	})
	b.Run("peer_git_merge", func(b *testing.B) {
		var lat []time.Duration
		for range b.N {
			round++
			i := round
			branch, file := fmt.Sprintf("peer%d", i), fmt.Sprintf("peer%d.txt", i)
			testkit.Git(b, dir, "switch", "-q", "-c", branch)
			if err := os.WriteFile(filepath.Join(dir, file), []byte(file+"\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			testkit.Git(b, dir, "add", file)
			testkit.Git(b, dir, "commit", "-qm", file)
			testkit.Git(b, dir, "switch", "-q", "main")
			t0 := time.Now()
			testkit.Git(b, dir, "merge", "-q", "--no-ff", "-m", "merge "+branch, branch)
			lat = append(lat, time.Since(t0))
		}
		b.ReportMetric(p50ms(lat), "p50-ms")
	})
	b.Run("peer_git_worktree_add", func(b *testing.B) {
		var lat []time.Duration
		for range b.N {
			round++
			branch, path := fmt.Sprintf("peer%d", round), filepath.Join(b.TempDir(), "wt")
			t0 := time.Now()
			testkit.Git(b, dir, "worktree", "add", "-q", "-b", branch, path, "HEAD")
			lat = append(lat, time.Since(t0))
			testkit.Git(b, dir, "worktree", "remove", "--force", path)
			testkit.Git(b, dir, "branch", "-q", "-D", branch)
		}
		b.ReportMetric(p50ms(lat), "p50-ms")
	})
}

// p50ms is the median of lat in milliseconds.
func p50ms(lat []time.Duration) float64 {
	slices.Sort(lat)
	return float64(lat[len(lat)/2].Microseconds()) / 1000
}

var idField = regexp.MustCompile(`"id": *"([^"]+)"`)

// jsonID is the first "id" of a --json output.
func jsonID(b *testing.B, out []byte) string {
	b.Helper()
	m := idField.FindSubmatch(out)
	if m == nil {
		b.Fatalf("no id in %s", out)
	}
	return string(m[1])
}

var taskLine = regexp.MustCompile(`(?m)^task ([^:\s]+):`)

// taskIDIn is the task id task start prints first.
func taskIDIn(b *testing.B, out []byte) string {
	b.Helper()
	m := taskLine.FindSubmatch(out)
	if m == nil {
		b.Fatalf("no task id in %s", out)
	}
	return string(m[1])
}
