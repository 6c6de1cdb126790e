package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/orchestrator/agent"
	"github.com/sudocode/sudocode/internal/testkit"
)

// bigRepo makes a git repository of files files (100 per directory) in
// one commit.
func bigRepo(b *testing.B, files int) string {
	b.Helper()
	dir := b.TempDir()
	testkit.Git(b, dir, "init", "-q", "-b", "main")
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
	testkit.Git(b, dir, "add", "-A")
	testkit.Git(b, dir, "commit", "-qm", "files")
	return dir
}

// reportLatencies reports the median of lat as p50-ms.
func reportLatencies(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}

func lookupReal(kind string) (agent.Adapter, bool) {
	a, err := agent.Lookup(kind)
	return a, err == nil
}

// BenchmarkCreateToStart measures create_task on a 10,000-file repository
// until the agent process has started: Create returns once the COMMAND's
// exec succeeded (os/exec's Start waits for it), so the time to Create's
// return is the time to the agent's start. Sub-benchmarks: with the warm
// worktree (the default), without it, and the peer, a bare `git worktree
// add -b` of the same repository. Each reports its median as p50-ms;
// setup and teardown (refilling the pool, ending the task) are not timed.
func BenchmarkCreateToStart(b *testing.B) {
	repo := bigRepo(b, 10_000)
	ctx := context.Background()
	for _, pooled := range []bool{true, false} {
		name := "pool"
		if !pooled {
			name = "no_pool"
		}
		b.Run(name, func(b *testing.B) {
			s, err := OpenStore(ctx, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			o := New(s, lookupReal, Options{Repo: repo, NoPool: !pooled})
			defer o.Close()
			in := CreateInput{Agent: "COMMAND", Description: "bench", Config: json.RawMessage(`{"command":["true"]}`)}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				if pooled {
					waitPool(b, o)
				}
				b.StartTimer()
				start := time.Now()
				t, err := o.Create(ctx, in)
				lat = append(lat, time.Since(start))
				b.StopTimer()
				if err != nil || t.Status != StatusInProgress {
					b.Fatalf("create: %+v %v", t, err)
				}
				if err := o.Wait(ctx, t.ID); err != nil {
					b.Fatal(err)
				}
				if _, err := o.End(ctx, t.ID, EndInput{}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.StopTimer()
			reportLatencies(b, lat)
		})
	}
	b.Run("peer_git_worktree_add", func(b *testing.B) {
		dir := b.TempDir()
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			path, branch := filepath.Join(dir, strconv.Itoa(i)), "peer/"+strconv.Itoa(i)
			start := time.Now()
			testkit.Git(b, repo, "worktree", "add", "-q", "-b", branch, path, "HEAD")
			lat = append(lat, time.Since(start))
			b.StopTimer()
			testkit.Git(b, repo, "worktree", "remove", "--force", path)
			testkit.Git(b, repo, "branch", "-q", "-D", branch)
			b.StartTimer()
		}
		b.StopTimer()
		reportLatencies(b, lat)
	})
}

// claudeLines returns n lines of Claude Code stream-json, each an
// assistant message of about 300 bytes, after the init line.
func claudeLines(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"type":"system","subtype":"init","session_id":"bench-session","cwd":"/w","model":"claude-sonnet-4-5"}` + "\n")
	for i := range n - 1 {
		fmt.Fprintf(&sb, `{"type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Step %d: I read the file, ran the tests and they pass; next I look at the handler."}],"usage":{"input_tokens":3,"output_tokens":20}},"parent_tool_use_id":null,"session_id":"bench-session","uuid":"u%d"}`+"\n", i, i, i)
	}
	return []byte(sb.String())
}

// catAdapter "runs" an agent by printing a recorded stream with cat and
// reads it with the Claude Code parser.
type catAdapter struct{ file string }

func (catAdapter) Kind() string              { return "BENCH" }
func (catAdapter) Check(agent.RunSpec) error { return nil }
func (a catAdapter) Invocation(agent.RunSpec) (agent.Invocation, error) {
	return agent.Invocation{Argv: []string{"cat", a.file}}, nil
}
func (catAdapter) NewParser() agent.Parser { return agent.Claude{}.NewParser() }
func (catAdapter) Credentials() []string   { return nil }

// BenchmarkIngest measures taking in 100,000 events:
//   - task: end to end, an agent printing 100,000 Claude Code JSON lines
//     through a pipe, parsed, batched and stored by a task (Create to
//     the end of the run);
//   - store: AppendEvents of 100,000 ready events;
//   - peer_decode: json.Unmarshal of the same 100,000 lines into a slice,
//     storing nothing: the floor of reading them at all.
func BenchmarkIngest(b *testing.B) {
	const n = 100_000
	lines := claudeLines(n)
	ctx := context.Background()
	b.Run("task", func(b *testing.B) {
		file := filepath.Join(b.TempDir(), "stream.jsonl")
		if err := os.WriteFile(file, lines, 0o644); err != nil {
			b.Fatal(err)
		}
		s, err := OpenStore(ctx, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		ad := catAdapter{file: file}
		o := New(s, func(string) (agent.Adapter, bool) { return ad, true }, Options{Repo: bigRepo(b, 1), NoPool: true})
		defer o.Close()
		b.ResetTimer()
		for range b.N {
			t, err := o.Create(ctx, CreateInput{Agent: "BENCH", Description: "ingest"})
			if err != nil {
				b.Fatal(err)
			}
			if err := o.Wait(ctx, t.ID); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if last, _ := s.LastSeq(ctx, t.ID); last < n {
				b.Fatalf("stored %d events", last)
			}
			b.StartTimer()
		}
	})
	b.Run("store", func(b *testing.B) {
		s, err := OpenStore(ctx, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		evs := make([]agent.Event, n)
		now := time.Now()
		for i := range evs {
			evs[i] = agent.Event{Time: now, Kind: agent.KindLog, Text: "line " + strconv.Itoa(i) + " of some typical agent output"}
		}
		b.ResetTimer()
		for i := range b.N {
			if _, err := s.AppendEvents(ctx, "task"+strconv.Itoa(i), evs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("peer_decode", func(b *testing.B) {
		for range b.N {
			out := make([]map[string]any, 0, n)
			for line := range strings.SplitSeq(strings.TrimSuffix(string(lines), "\n"), "\n") {
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					b.Fatal(err)
				}
				out = append(out, m)
			}
			if len(out) != n {
				b.Fatalf("decoded %d", len(out))
			}
		}
	})
}
