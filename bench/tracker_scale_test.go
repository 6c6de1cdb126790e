package bench_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
// writers at once, each making TRACKER_WRITES mutations in turn (issue
// create, update, link, feedback add; default 10, so that CI stays short:
// TRACKER_WRITES=200 is the full load), with a reader asking ready ten
// times a second meanwhile: first as 16 agents talking to their own `sudocode mcp`
// server (how agents use the tracker), then as 16 loops running one
// `sudocode` process per mutation (a script's way); then writers killed
// by SIGKILL at random moments. Nothing acknowledged is lost, every file
// stays valid and sorted, and a cache rebuilt from the files agrees. The
// write rate of each way and the reader's waits are logged.
func TestTrackerWritersAtScale(t *testing.T) {
	bin := testkit.Binary(t, "./cmd/sudocode")
	root := t.TempDir()
	if err := trackergen.Generate(root, trackergen.Large); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "SUDOCODE_ACTOR=scale")
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command(bin, append(args, "--json")...)
		cmd.Dir, cmd.Env = root, env
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
	acked := &acknowledged{titles: map[string]string{}, links: map[string]bool{}}
	for _, way := range []struct {
		name   string
		writer func(t *testing.T) scaleWriter
	}{
		{"MCP servers (sudocode mcp, one per writer)", func(t *testing.T) scaleWriter { return startMCPWriter(t, bin, root, env) }},
		{"CLI processes (one per mutation)", func(*testing.T) scaleWriter { return cliWriter(run) }},
	} {
		ws := make([]scaleWriter, writers)
		for i := range ws {
			ws[i] = way.writer(t)
		}
		stop := make(chan struct{})
		var readerWaits []time.Duration
		var reader sync.WaitGroup
		reader.Go(func() {
			// An agent polling for work, ten times a second.
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
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
			wg.Go(func() { acked.write(t, ws[w], w, writes, base, spec) })
		}
		wg.Wait()
		elapsed := time.Since(start)
		close(stop)
		reader.Wait()
		t.Logf("%s: %d writers × %d mutations at 100,000 issues: %v, %.1f mutations per second (target ≥ 200)",
			way.name, writers, writes, elapsed.Round(time.Millisecond), float64(writers*writes)/elapsed.Seconds())
		if len(readerWaits) > 0 {
			slices.Sort(readerWaits)
			t.Logf("ready during the writes: %d calls, median %v, slowest %v", len(readerWaits), readerWaits[len(readerWaits)/2], readerWaits[len(readerWaits)-1])
		}
	}
	titles, links, feedback := acked.titles, acked.links, acked.feedback

	// Killed writers: each change is whole or absent. The kills land
	// within the time a create takes at this size (most of it the process
	// starting), so that most are killed before they finish; the window
	// shrinks after a writer finished first, so that a loaded machine's
	// slower starts do not spare them all.
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
	killed, window := 0, median
	for i := 0; killed < 12 && i < 60; i++ {
		cmd := exec.Command(bin, "issue", "create", fmt.Sprint("killed ", i), "--json")
		cmd.Dir = root
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(window/4 + rand.N(window*3/4)) // when to kill it, not a wait for anything
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
			killed++
		} else {
			window = max(window*3/4, time.Millisecond)
		}
	}
	t.Logf("%d writers killed before they finished (a create takes %v)", killed, median.Round(time.Millisecond))
	if killed < 12 {
		t.Errorf("only %d writers were killed before they finished, in 60 tries: the kills test little", killed)
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

// acknowledged is what the writers were told succeeded.
type acknowledged struct {
	mu       sync.Mutex
	titles   map[string]string // created issue → its last acknowledged title
	links    map[string]bool   // "from to"
	feedback int
}

// write makes writer w's mutations in turn: a create, then an update,
// a link and a feedback on the issue it created last.
func (a *acknowledged) write(t *testing.T, sw scaleWriter, w, writes int, base []string, spec string) {
	rng := rand.New(rand.NewPCG(uint64(w), 3))
	var own string
	for i := range writes {
		var err error
		switch {
		case own == "" || i%4 == 0:
			title := fmt.Sprintf("writer %d item %d", w, i)
			var id string
			if id, err = sw.create(title); err == nil {
				a.mu.Lock()
				own, a.titles[id] = id, title
				a.mu.Unlock()
			}
		case i%4 == 1:
			title := fmt.Sprintf("writer %d item %d, updated", w, i)
			if err = sw.update(own, title); err == nil {
				a.mu.Lock()
				a.titles[own] = title
				a.mu.Unlock()
			}
		case i%4 == 2:
			to := base[rng.IntN(len(base))]
			if err = sw.link(own, to); err == nil {
				a.mu.Lock()
				a.links[own+" "+to] = true
				a.mu.Unlock()
			}
		default:
			if err = sw.addFeedback(own, spec, fmt.Sprintf("writer %d note %d", w, i)); err == nil {
				a.mu.Lock()
				a.feedback++
				a.mu.Unlock()
			}
		}
		if err != nil {
			t.Errorf("writer %d, mutation %d: %v", w, i, err)
		}
	}
}

// scaleWriter makes the four mutations of the load.
type scaleWriter interface {
	create(title string) (id string, err error)
	update(id, title string) error
	link(from, to string) error
	addFeedback(issue, spec, content string) error
}

// cliWriter runs a sudocode process per mutation.
type cliWriter func(args ...string) ([]byte, error)

func (c cliWriter) do(args ...string) ([]byte, error) {
	out, err := c(args...)
	if err != nil {
		return nil, fmt.Errorf("%v: %v %s", args, err, out)
	}
	return out, nil
}

func (c cliWriter) create(title string) (string, error) {
	out, err := c.do("issue", "create", title)
	var r struct{ ID string }
	if err == nil {
		err = json.Unmarshal(out, &r)
	}
	return r.ID, err
}

func (c cliWriter) update(id, title string) error {
	_, err := c.do("issue", "update", id, "--title", title)
	return err
}

func (c cliWriter) link(from, to string) error {
	_, err := c.do("link", from, to, "--type", "depends-on")
	return err
}

func (c cliWriter) addFeedback(issue, spec, content string) error {
	_, err := c.do("feedback", "add", issue, spec, "--content", content, "--line", "3")
	return err
}

// mcpWriter is an agent's session with its own `sudocode mcp` server.
type mcpWriter struct {
	in  io.Writer
	out *bufio.Reader
	id  int
}

func startMCPWriter(t *testing.T, bin, root string, env []string) *mcpWriter {
	cmd := exec.Command(bin, "mcp")
	cmd.Dir, cmd.Env = root, env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	w := &mcpWriter{in: in, out: bufio.NewReader(out)}
	if _, err := w.call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"scale","version":"1"}}`); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w *mcpWriter) call(method, params string) ([]byte, error) {
	w.id++
	fmt.Fprintf(w.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", w.id, method, params)
	line, err := w.out.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if bytes.Contains(line, []byte(`"error":{`)) || bytes.Contains(line, []byte(`"isError":true`)) {
		return nil, fmt.Errorf("%s %s: %s", method, params, line)
	}
	return line, nil
}

func (w *mcpWriter) tool(name string, args map[string]any) ([]byte, error) {
	a, _ := json.Marshal(map[string]any{"name": name, "arguments": args})
	return w.call("tools/call", string(a))
}

func (w *mcpWriter) create(title string) (string, error) {
	line, err := w.tool("create_issue", map[string]any{"title": title})
	if err != nil {
		return "", err
	}
	var r struct {
		Result struct {
			StructuredContent struct{ ID string } `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &r); err != nil || r.Result.StructuredContent.ID == "" {
		return "", fmt.Errorf("create_issue answered %s (%v)", line, err)
	}
	return r.Result.StructuredContent.ID, nil
}

func (w *mcpWriter) update(id, title string) error {
	_, err := w.tool("update_issue", map[string]any{"issue_id": id, "title": title})
	return err
}

func (w *mcpWriter) link(from, to string) error {
	_, err := w.tool("link", map[string]any{"from_id": from, "to_id": to, "type": "depends-on"})
	return err
}

func (w *mcpWriter) addFeedback(issue, spec, content string) error {
	_, err := w.tool("add_feedback", map[string]any{"issue_id": issue, "spec_id": spec, "content": content, "line": 3})
	return err
}
