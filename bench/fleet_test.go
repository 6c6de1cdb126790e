package bench_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// fleetScript is the COMMAND agent of the fleet benchmark: it prints when
// it starts and when it is done (date(1), the clock the benchmark reads
// too), and commits a one-file change in between.
const fleetScript = `echo agent-start $(date +%s%N)
echo x > "f-$$.txt" && git add -A && git -c user.name=A -c user.email=a@example.com commit -qm work
echo agent-end $(date +%s%N)`

// BenchmarkFleet measures the orchestration's own time per task, apart
// from the agent's, with tasks started through serve's task API at 1, 4
// and 16 at once:
//
//   - local: serve --fleet=false, running the agents as its own
//     processes (the peer);
//   - fleet_one_machine: serve --fleet (its default), the agents run by
//     the worker in serve's process, through the embedded NATS JetStream;
//   - fleet_three_workers: serve --fleet --local-slots 0 and three
//     `sudocode worker` processes, each with its own clone.
//
// Each task's overhead is the time from the request that starts it to
// the agent's first output, plus from the agent's last output to the
// task's end as stored (finished_at); reported as overhead-p50-ms and
// overhead-p90-ms, with tasks/min over the whole batch.
func BenchmarkFleet(b *testing.B) {
	bin := testkit.Binary(b, "./cmd/sudocode")
	for _, setup := range []string{"local", "fleet_one_machine", "fleet_three_workers"} {
		for _, par := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("%s/parallel_%d", setup, par), func(b *testing.B) {
				api := startFleetServe(b, bin, setup)
				var over []time.Duration
				var wall time.Duration
				tasks := 0
				for range b.N {
					n := max(2*par, 8)
					start := time.Now()
					over = append(over, runBatch(b, api, n, par)...)
					wall += time.Since(start)
					tasks += n
				}
				slices.Sort(over)
				b.ReportMetric(float64(over[len(over)/2])/1e6, "overhead-p50-ms")
				b.ReportMetric(float64(over[len(over)*9/10])/1e6, "overhead-p90-ms")
				b.ReportMetric(float64(tasks)/wall.Minutes(), "tasks/min")
			})
		}
	}
}

// fleetAPI is a serve's task API.
type fleetAPI struct {
	url, token string
}

// startFleetServe starts serve (and its workers) for setup on a new
// repository with a tracker.
func startFleetServe(b *testing.B, bin, setup string) fleetAPI {
	b.Helper()
	dir := testkit.Repo(b)
	env := append(trackerRepo(b, bin, dir, b.TempDir()), "XDG_STATE_HOME="+b.TempDir())
	args := []string{"serve", "--addr", "127.0.0.1:0", "--json", "--dir", dir, "--token", "bench"}
	switch setup {
	case "local":
		args = append(args, "--fleet=false")
	case "fleet_one_machine":
		args = append(args, "--fleet", "--local-slots", "16")
	case "fleet_three_workers":
		args = append(args, "--fleet", "--local-slots", "0")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	// The processes' logs are shown only when the benchmark fails: on
	// go test's output they would split a result line the scripts read.
	logs := &testkit.LockedBuffer{}
	b.Cleanup(func() {
		if b.Failed() {
			b.Logf("serve and its workers:\n%s", logs)
		}
	})
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	var doc struct {
		URL   string `json:"url"`
		Fleet *struct {
			NATS string `json:"nats"`
		} `json:"fleet"`
	}
	if err := json.NewDecoder(bufio.NewReader(out)).Decode(&doc); err != nil {
		b.Fatal(err)
	}
	if setup == "fleet_three_workers" {
		for i := range 3 {
			creds := filepath.Join(b.TempDir(), "w.creds")
			sudocodeIn(b, bin, dir, env, "workers", "add", fmt.Sprintf("w%d", i+1), "--out", creds)
			w := exec.Command(bin, "worker", "--connect", doc.Fleet.NATS, "--creds", creds, "--slots", "6")
			w.Env = append(slices.Clone(os.Environ()), "XDG_STATE_HOME="+b.TempDir())
			w.Stderr = logs
			if err := w.Start(); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = w.Process.Signal(os.Interrupt); _ = w.Wait() })
		}
	}
	api := fleetAPI{url: strings.TrimSuffix(doc.URL, "/"), token: "bench"}
	if setup == "fleet_three_workers" {
		// Measured once the workers are in: admitted (serve reads the
		// registry every 2 s), and each with its clone made by a first
		// task.
		deadline := time.Now().Add(time.Minute)
		for {
			var ws []json.RawMessage
			if err := json.Unmarshal(sudocodeIn(b, bin, dir, env, "workers", "--json"), &ws); err == nil && len(ws) == 3 {
				break
			}
			if time.Now().After(deadline) {
				b.Fatal("the three workers did not join within a minute")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if setup != "local" {
		runBatch(b, api, 6, 6) // every worker's first run makes its clone
	}
	return api
}

// runBatch runs n tasks, par at once, and returns each one's overhead.
func runBatch(b *testing.B, api fleetAPI, n, par int) []time.Duration {
	b.Helper()
	sem := make(chan struct{}, par)
	var mu sync.Mutex
	var over []time.Duration
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			d, err := api.oneTask(fmt.Sprintf("bench task %d", i))
			if err != nil {
				b.Error(err)
				return
			}
			mu.Lock()
			over = append(over, d)
			mu.Unlock()
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	return over
}

var agentTime = regexp.MustCompile(`agent-(start|end) ([0-9]+)`)

// oneTask starts a task, follows it to its end and returns its overhead.
// It follows the task's event stream, as the dashboard does, rather than
// polling: sixteen clients polling every 5 ms sent 3,200 requests a
// second to the server whose cost is measured.
func (api fleetAPI) oneTask(desc string) (time.Duration, error) {
	body, _ := json.Marshal(map[string]any{"tool": "COMMAND", "description": desc,
		"config": map[string]any{"command": []string{"sh", "-c", fleetScript}}})
	sent := time.Now()
	var t taskEnd
	if err := api.do("POST", "/api/tasks", body, &t); err != nil {
		return 0, err
	}
	end, times, err := api.follow(t.ID)
	if err != nil {
		return 0, err
	}
	if end.Status != "completed" {
		return 0, fmt.Errorf("task %s: %s", t.ID, end.Status)
	}
	if times["start"] == 0 || times["end"] == 0 {
		return 0, fmt.Errorf("task %s: the agent's times are not in its log", t.ID)
	}
	return time.Unix(0, times["start"]).Sub(sent) + end.FinishedAt.Sub(time.Unix(0, times["end"])), nil
}

// taskEnd is what the benchmark reads of a task.
type taskEnd struct {
	ID         string     `json:"id"`
	Status     string     `json:"status"`
	FinishedAt *time.Time `json:"finished_at"`
}

// follow reads task id's event stream until the task has ended: its last
// state, and the agent's start and end times found in its log.
func (api fleetAPI) follow(id string) (taskEnd, map[string]int64, error) {
	times := map[string]int64{}
	req, err := http.NewRequest("GET", api.url+"/api/tasks/"+id+"/stream", nil)
	if err != nil {
		return taskEnd{}, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+api.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return taskEnd{}, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return taskEnd{}, nil, fmt.Errorf("task %s's stream: %s", id, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "log":
			for _, m := range agentTime.FindAllStringSubmatch(line, -1) {
				times[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
			}
		case strings.HasPrefix(line, "data: ") && event == "task":
			var t taskEnd
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &t); err != nil {
				return taskEnd{}, nil, err
			}
			if t.FinishedAt != nil {
				return t, times, nil
			}
		}
	}
	return taskEnd{}, nil, fmt.Errorf("task %s's stream ended before the task: %v", id, sc.Err())
}

// do sends a request to the API and decodes its JSON answer into v (a
// *bytes.Buffer takes it as it is).
func (api fleetAPI) do(method, path string, body []byte, v any) error {
	req, err := http.NewRequest(method, api.url+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+api.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, buf.String())
	}
	if buf, ok := v.(*bytes.Buffer); ok {
		_, err = buf.ReadFrom(resp.Body)
		return err
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
