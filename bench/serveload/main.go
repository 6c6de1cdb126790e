// Command serveload is the load test of `sudocode serve` that
// bench/serve.sh runs:
//
//	serveload peer [-addr 127.0.0.1:0]
//		serves the peer: a bare MCP server with one no-op tool on the same
//		HTTP stack as serve's endpoints (mcpx.Handler: the origin, token and
//		body checks, then the SDK's Streamable HTTP handler), and prints its
//		URL; it runs until SIGINT or SIGTERM.
//	serveload load -target URL -peer URL [-clients 50] [-duration 60s]
//		runs the clients: each one holds an MCP session per endpoint and
//		calls, in turn, tracker ready and list_issues, rulesets
//		list_rulesets and get_ruleset, coding read_file and list_dir, and
//		agent report_task, for the duration; then the same number of clients call the peer's no-op
//		tool for the same duration. It prints throughput and latency
//		percentiles for both, and their ratio, and exits 1 on any error.
//		The bearer token of serve is read from SERVELOAD_TOKEN.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcpx"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "peer":
		err = runPeer(os.Args[2:])
	case "load":
		err = runLoad(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: serveload peer [-addr ADDR] | serveload load -target URL -peer URL [-clients N] [-duration D]")
	os.Exit(2)
}

// runPeer serves the bare server until a signal.
func runPeer(args []string) error {
	fs := flag.NewFlagSet("peer", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	fs.Parse(args)
	s := mcp.NewServer(&mcp.Implementation{Name: "peer", Version: "0"}, nil)
	type empty struct{}
	mcp.AddTool(s, &mcp.Tool{Name: "noop", Description: "does nothing"},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, empty{}, nil
		})
	t := mcpx.Transport{HTTPAddr: *addr}
	ln, err := mcpx.Listen(t)
	if err != nil {
		return err
	}
	fmt.Printf("http://%s%s\n", ln.Addr(), mcpx.Path)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return mcpx.ServeHTTP(ctx, ln, mcpx.Handler(s, t, logger), 0, logger)
}

// op is one kind of call a client makes.
type op struct {
	endpoint, tool string
	args           map[string]any
}

// mix is what every serve client calls, in turn; runLoad adds the agent's
// report_task on the task it seeds.
var mix = []op{
	{"tracker", "ready", map[string]any{}},
	{"tracker", "list_issues", map[string]any{"limit": 20}},
	{"rulesets", "list_rulesets", map[string]any{}},
	{"rulesets", "get_ruleset", map[string]any{"name": "bench_rules_1"}},
	{"coding", "read_file", map[string]any{"path": "README.md"}},
	{"coding", "list_dir", map[string]any{"path": "."}},
}

var peerMix = []op{{"peer", "noop", map[string]any{}}}

// result is what one phase measured.
type result struct {
	name      string
	calls     int
	elapsed   time.Duration
	latencies []time.Duration
	perTool   map[string][]time.Duration
	errors    []string
	errCount  int
}

func (r *result) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	i := int(p * float64(len(r.latencies)-1))
	return r.latencies[i]
}

func (r *result) throughput() float64 { return float64(r.calls) / r.elapsed.Seconds() }

func runLoad(args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	target := fs.String("target", "", "base URL of sudocode serve, e.g. http://127.0.0.1:7474")
	peer := fs.String("peer", "", "URL of the peer's MCP endpoint")
	clients := fs.Int("clients", 50, "concurrent clients")
	duration := fs.Duration("duration", 60*time.Second, "how long each phase runs")
	fs.Parse(args)
	if *target == "" || *peer == "" {
		usage()
	}
	base := strings.TrimSuffix(*target, "/")
	httpClient := &http.Client{Transport: bearer{token: os.Getenv("SERVELOAD_TOKEN"), base: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        1000,
		MaxIdleConnsPerHost: 1000,
		IdleConnTimeout:     90 * time.Second,
	}}}
	urls := map[string]string{
		"tracker":  base + "/mcp/tracker",
		"rulesets": base + "/mcp/rulesets",
		"coding":   base + "/mcp/coding",
		"agent":    base + "/mcp/agent",
		"peer":     *peer,
	}
	if err := seed(httpClient, urls["rulesets"]); err != nil {
		return fmt.Errorf("seeding the rulesets: %w", err)
	}
	taskID, err := seedTask(httpClient, urls["agent"])
	if err != nil {
		return fmt.Errorf("seeding a task: %w", err)
	}
	mix = append(mix, op{"agent", "report_task", map[string]any{"taskId": taskID}})
	fmt.Printf("== sudocode serve under load: %d concurrent MCP clients, %v per phase ==\n", *clients, *duration)
	serveRes, err := phase("serve", httpClient, urls, mix, *clients, *duration)
	if err != nil {
		return err
	}
	peerRes, err := phase("peer", httpClient, urls, peerMix, *clients, *duration)
	if err != nil {
		return err
	}
	report(serveRes)
	report(peerRes)
	fmt.Printf("%-44s %10.2fx\n", "p99 ratio, serve mix / bare no-op peer", ratio(serveRes.percentile(0.99), peerRes.percentile(0.99)))
	fmt.Printf("%-44s %10.2fx\n", "p50 ratio, serve mix / bare no-op peer", ratio(serveRes.percentile(0.50), peerRes.percentile(0.50)))
	fmt.Printf("%-44s %10.2f\n", "throughput ratio, serve mix / peer", serveRes.throughput()/peerRes.throughput())
	if n := serveRes.errCount + peerRes.errCount; n > 0 {
		return fmt.Errorf("%d calls failed (no error is allowed)", n)
	}
	return nil
}

// bearer sends serve's token with every request (the peer, which needs
// none, ignores it).
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.base.RoundTrip(r)
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func report(r *result) {
	fmt.Printf("\n%s: %d calls in %.1fs, %d errors\n", r.name, r.calls, r.elapsed.Seconds(), r.errCount)
	fmt.Printf("  %-40s %10.0f calls/s\n", "throughput", r.throughput())
	fmt.Printf("  %-40s %10s  p90 %s  p99 %s  max %s\n", "latency p50", ms(r.percentile(0.50)), ms(r.percentile(0.90)),
		ms(r.percentile(0.99)), ms(r.percentile(1)))
	names := make([]string, 0, len(r.perTool))
	for k := range r.perTool {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		ls := r.perTool[k]
		slices.Sort(ls)
		fmt.Printf("    %-38s %8d calls  p50 %s  p99 %s\n", k, len(ls), ms(ls[len(ls)/2]), ms(ls[int(0.99*float64(len(ls)-1))]))
	}
	for _, e := range r.errors {
		fmt.Println("  error:", e)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

// seed puts the rulesets the mix reads (through MCP, as a client would).
func seed(hc *http.Client, url string) error {
	s, err := connect(hc, url)
	if err != nil {
		return err
	}
	defer s.Close()
	for i := 1; i <= 20; i++ {
		_, err := call(s, "upsert_ruleset", map[string]any{"name": fmt.Sprintf("bench_rules_%d", i),
			"description": fmt.Sprintf("Rules %d", i), "markdown": fmt.Sprintf("# Rules %d\n\n- Keep functions small.\n- Name things for what they hold.\n", i)})
		if err != nil {
			return err
		}
	}
	return nil
}

// seedTask runs one COMMAND task to its end (a progress token keeps the
// call open until then) and returns its id, for report_task to read.
func seedTask(hc *http.Client, url string) (string, error) {
	s, err := connect(hc, url)
	if err != nil {
		return "", err
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{
		"tool": "COMMAND", "description": "bench task",
		"config": map[string]any{"command": []string{"sh", "-c", "echo bench > bench.txt; echo done"}},
	}}
	p.SetProgressToken("seed")
	res, err := s.CallTool(ctx, p)
	if err != nil {
		return "", err
	}
	var out struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || res.IsError || out.Result.TaskID == "" {
		return "", fmt.Errorf("create_task: %s", b)
	}
	return out.Result.TaskID, nil
}

func connect(hc *http.Client, url string) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return mcp.NewClient(&mcp.Implementation{Name: "serveload", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
}

// call makes one tool call; a tool error is an error.
func call(s *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		text := ""
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		b, _ := json.Marshal(args)
		return nil, fmt.Errorf("%s %s: %s", tool, b, text)
	}
	return res, nil
}

// phase runs n clients over ops for d and merges what they measured.
func phase(name string, hc *http.Client, urls map[string]string, ops []op, n int, d time.Duration) (*result, error) {
	type clientResult struct {
		lat     []time.Duration
		perTool map[string][]time.Duration
		errs    []string
		errN    int
	}
	// Connect every client first, so the timed part is calls only.
	sessions := make([]map[string]*mcp.ClientSession, n)
	for i := range n {
		sessions[i] = map[string]*mcp.ClientSession{}
		for _, o := range ops {
			if sessions[i][o.endpoint] != nil {
				continue
			}
			s, err := connect(hc, urls[o.endpoint])
			if err != nil {
				return nil, fmt.Errorf("%s client %d: connect to %s: %w", name, i, urls[o.endpoint], err)
			}
			sessions[i][o.endpoint] = s
		}
	}
	defer func() {
		for _, m := range sessions {
			for _, s := range m {
				s.Close()
			}
		}
	}()
	results := make([]clientResult, n)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cr := clientResult{perTool: map[string][]time.Duration{}}
			for k := i; time.Now().Before(deadline); k++ {
				o := ops[k%len(ops)]
				t0 := time.Now()
				_, err := call(sessions[i][o.endpoint], o.tool, o.args)
				lat := time.Since(t0)
				if err != nil {
					cr.errN++
					if len(cr.errs) < 3 {
						cr.errs = append(cr.errs, err.Error())
					}
					continue
				}
				cr.lat = append(cr.lat, lat)
				key := o.endpoint + " " + o.tool
				cr.perTool[key] = append(cr.perTool[key], lat)
			}
			results[i] = cr
		}()
	}
	wg.Wait()
	r := &result{name: name, elapsed: time.Since(start), perTool: map[string][]time.Duration{}}
	for _, cr := range results {
		r.latencies = append(r.latencies, cr.lat...)
		for k, v := range cr.perTool {
			r.perTool[k] = append(r.perTool[k], v...)
		}
		r.errCount += cr.errN
		if len(r.errors) < 5 {
			r.errors = append(r.errors, cr.errs...)
		}
	}
	r.calls = len(r.latencies)
	slices.Sort(r.latencies)
	if r.calls == 0 {
		return r, fmt.Errorf("%s: no call succeeded", name)
	}
	return r, nil
}
