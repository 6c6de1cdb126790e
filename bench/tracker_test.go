package bench_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/trackergen"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// trackerSize is the generated repository the CLI benchmark runs on:
// TRACKER_SIZE=large gives 100,000 issues, 10,000 specs and 200,000
// relationships; otherwise 10,000 / 1,000 / 20,000.
func trackerSize() trackergen.Size {
	if os.Getenv("TRACKER_SIZE") == "large" {
		return trackergen.Large
	}
	return trackergen.Benchmark
}

// BenchmarkTrackerCLI measures whole sudocode processes, as an agent runs
// them, on a generated repository (see trackerSize). Peers in the same
// run: the process floor (sudocode --version) and, for the whole issue
// list, cat writing the same bytes. The whole lists (every issue, every
// blocked issue) also report how many rows they print, so that a row's
// time follows: listing blocked work, each item with what it waits for,
// should cost a row what listing costs.
func BenchmarkTrackerCLI(b *testing.B) {
	bin := testkit.Binary(b, "./cmd/sudocode")
	dir := b.TempDir()
	if err := trackergen.Generate(dir, trackerSize()); err != nil {
		b.Fatal(err)
	}
	var cpu time.Duration // the CPU time of the processes run, user and system
	runIn := func(b *testing.B, dir, name string, args ...string) []byte {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SUDOCODE_ACTOR=bench")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return out
	}
	run := func(b *testing.B, name string, args ...string) []byte { return runIn(b, dir, name, args...) }
	run(b, bin, "status") // builds the cache
	showID := strings.SplitN(strings.SplitN(string(run(b, bin, "issue", "list", "--json", "--limit", "1")), `"id": "`, 2)[1], `"`, 2)[0]
	all := []string{"issue", "list", "--all", "--json", "--limit", "0"}
	listed := filepath.Join(b.TempDir(), "list.json")
	if err := os.WriteFile(listed, run(b, bin, all...), 0o644); err != nil {
		b.Fatal(err)
	}
	tdir := filepath.Join(dir, ".sudocode")
	firstLayout := filepath.Join(b.TempDir(), "first-layout")
	status := []string{"in_progress", "open"}
	for _, c := range []struct {
		name  string
		dir   string // where it runs, if not in dir
		args  []string
		setup func(i int) []string // per run, outside the timing: the args
		rows  string               // the list of the --json output whose rows are counted
	}{
		{name: "ready", args: []string{"ready", "--json"}},
		{name: "blocked", args: []string{"blocked", "--json"}},
		{name: "stats", args: []string{"stats", "--json"}},
		{name: "issue_show", args: []string{"issue", "show", showID, "--json"}},
		{name: "issue_create", args: []string{"issue", "create", "Benchmark issue", "--json"}},
		{name: "issue_update", setup: func(i int) []string { return []string{"issue", "update", showID, "--status", status[i%2], "--json"} }},
		{name: "list_all", args: all, rows: "issues"},
		{name: "blocked_all", args: []string{"blocked", "--json", "--limit", "0"}, rows: "issues"},
		{name: "blocked_all_text", args: []string{"blocked", "--limit", "0"}},
		{name: "peer_list_bytes"},
		{name: "cold_start", setup: func(int) []string {
			for _, f := range []string{"cache.db", "cache.db-wal", "cache.db-shm"} {
				os.Remove(filepath.Join(dir, ".sudocode", f))
			}
			return []string{"status"}
		}},
		{name: "pull_of_10", setup: func(i int) []string {
			pullTen(b, tdir, i)
			return []string{"status"}
		}},
		// A tracker of the first layout, as a clone from before shard
		// files has it: the first command moves every record into its
		// shard, checks them and builds the cache.
		{name: "migrate", dir: firstLayout, setup: func(int) []string {
			if err := os.RemoveAll(firstLayout); err != nil {
				b.Fatal(err)
			}
			if err := trackergen.GenerateFirstLayout(firstLayout, trackerSize()); err != nil {
				b.Fatal(err)
			}
			return []string{"status"}
		}},
		{name: "peer_version", args: []string{"--version"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			rows := 0
			if c.rows != "" {
				rows = countRows(b, run(b, bin, c.args...), c.rows)
			}
			cpu = 0
			i := 0
			for b.Loop() {
				args := c.args
				if c.setup != nil {
					b.StopTimer()
					args = c.setup(i)
					b.StartTimer()
				}
				i++
				if c.name == "peer_list_bytes" {
					run(b, "cat", listed)
					continue
				}
				if c.dir != "" {
					runIn(b, c.dir, bin, args...)
					continue
				}
				run(b, bin, args...)
			}
			if rows > 0 {
				b.ReportMetric(float64(rows), "rows")
			}
			// CPU time, which other work on the machine stretches less
			// than the elapsed time.
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// countRows is the length of the list key of a --json output.
func countRows(b *testing.B, out []byte, key string) int {
	var v map[string]json.RawMessage
	if err := json.Unmarshal(out, &v); err != nil {
		b.Fatal(err)
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(v[key], &rows); err != nil || len(rows) == 0 {
		b.Fatalf("no %s in the output (%v)", key, err)
	}
	return len(rows)
}

// pullTen changes the titles of 10 issues spread over the issue shard
// files, one in each of 10 shards, as a pull that brought other clones'
// edits of 10 issues does: git rewrites those shard files.
func pullTen(b *testing.B, tdir string, round int) {
	var shards []string
	for _, f := range trackertest.ShardFiles(tracker.IssueRecords) {
		p := filepath.Join(tdir, filepath.FromSlash(f))
		if _, err := os.Stat(p); err == nil {
			shards = append(shards, p)
		}
	}
	step := max(1, len(shards)/10)
	for k := 0; k < 10 && k*step < len(shards); k++ {
		path := shards[k*step]
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		l := &lines[(len(lines)-1)/2] // the middle line (the last element is the empty rest)
		*l = bytes.Replace(*l, []byte(`"title":"`), []byte(`"title":"`+string(rune('a'+round%26))), 1)
		if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
