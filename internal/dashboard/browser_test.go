package dashboard_test

// Browser tests: the dashboard in headless Chromium (Debian's chromium
// package), driven by chromedp, against `sudocode serve` running in-process
// on a free loopback port. Changes are made through MCP (the SDK's
// Streamable HTTP client) and the orchestrator, and must show up on the page
// without a reload. Under CI=true a missing Chromium fails the test.
//
// SUDOCODE_SCREENSHOTS=DIR keeps the screenshots the test takes.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/orchestrator"
	"github.com/sudocode/sudocode/internal/serve"
	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

// chromium finds a Chromium or Chrome binary: a skip on a developer machine
// without one, a failure in CI.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testkit.Missing(t, "no Chromium on PATH; the browser tests need it: apt-get install -y chromium")
	return ""
}

// browserToken is the token of the servers the browser tests start:
// pages open with /?token=browserToken, connectMCP sends it.
const browserToken = "browser-test-token-0123456789"

// startServe runs `sudocode serve` in-process over f, with browserToken,
// and returns its base URL.
func startServe(t *testing.T, f *fixture) (string, *serve.Server) {
	t.Helper()
	return startServeWith(t, f, serve.Options{Token: browserToken})
}

// startServeWith is startServe with the server's token options o (Token,
// NoAuth).
func startServeWith(t *testing.T, f *fixture, o serve.Options) (string, *serve.Server) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	o.Dir, o.Rulesets, o.Version, o.Actor, o.Worktrees = f.dir, f.rules, "test", "tester", t.TempDir()
	srv, err := serve.New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		srv.Close()
	})
	return "http://" + ln.Addr().String(), srv
}

// browser starts a headless Chromium, collects its console messages and
// follows the page's requests through DevTools' network events.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	messages []chromedp.ConsoleMessage
	inFlight map[network.RequestID]string // requests sent, not yet finished or failed → URL
	sent     int                          // requests sent so far
	changed  chan struct{}                // closed and replaced whenever the above change
}

const viewW, viewH = 1280, 800

func newBrowser(t *testing.T) *browser {
	t.Helper()
	exe := chromium(t)
	ctx, cancel := chrome.browserContext(t, exe)
	ctx, cancelT := context.WithTimeout(ctx, testkit.Scale(3*time.Minute))
	t.Cleanup(func() {
		cancelT()
		cancel()
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(viewW, viewH)); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	b := &browser{ctx: ctx, inFlight: map[network.RequestID]string{}, changed: make(chan struct{})}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			b.update(func() { b.messages = append(b.messages, m) })
		}
	}()
	if err := chromedp.Listen(ctx, b.followRequest); err != nil {
		t.Fatalf("following %s's requests: %v", exe, err)
	}
	return b
}

// followRequest keeps the set of the page's requests in flight from
// DevTools' network events. An event stream (the page's live updates)
// stays open for good and is not counted. A request is done when its body
// is loaded, which for a fetch is when the page has read it: a response
// the page never reads stays in flight.
func (b *browser) followRequest(ev any) {
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if ev.Type != network.ResourceTypeEventSource && ev.Type != network.ResourceTypeWebSocket {
			b.update(func() { b.inFlight[ev.RequestID] = ev.Request.URL; b.sent++ })
		}
	case *network.EventLoadingFinished:
		b.update(func() { delete(b.inFlight, ev.RequestID) })
	case *network.EventLoadingFailed:
		b.update(func() { delete(b.inFlight, ev.RequestID) })
	}
}

// update changes the browser's record under its lock and wakes whoever
// waits for a change.
func (b *browser) update(change func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	change()
	close(b.changed)
	b.changed = make(chan struct{})
}

// await waits until cond, read under the browser's lock, holds; it wakes
// on each change DevTools reports, never on a timer. It fails t, saying
// what it waited for and what state says (also read under the lock), at
// the test's deadline.
func (b *browser) await(t *testing.T, what string, cond func() bool, state func() string) {
	t.Helper()
	deadline := time.After(testkit.Scale(20 * time.Second))
	for {
		b.mu.Lock()
		ok, changed := cond(), b.changed
		b.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			b.mu.Lock()
			defer b.mu.Unlock()
			t.Fatalf("waited %v for %s: %s", testkit.Scale(20*time.Second), what, state())
		}
	}
}

// settles counts the calls of settle, naming each one's console marker.
var settles atomic.Int64

// settle waits until the page has done what its last action started: no
// request in flight, then the page's pending tasks run (a response's
// handler may send another request, and then settle waits again), then
// every console message written until now received.
func (b *browser) settle(t *testing.T) {
	t.Helper()
	for {
		b.await(t, "the page's requests to finish", func() bool { return len(b.inFlight) == 0 }, func() string {
			return fmt.Sprintf("still in flight: %v", slices.Collect(maps.Values(b.inFlight)))
		})
		b.mu.Lock()
		sent := b.sent
		b.mu.Unlock()
		// A task queued after the ones the responses queued.
		if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`new Promise(done => setTimeout(() => done(true)))`, chromedp.EvalAwaitPromise)); err != nil {
			t.Fatalf("running the page's pending tasks: %v", err)
		}
		b.mu.Lock()
		idle := len(b.inFlight) == 0 && b.sent == sent
		b.mu.Unlock()
		if idle {
			break
		}
	}
	// The console's messages arrive in order: once this one is in, every
	// earlier one is.
	marker := fmt.Sprintf("settled %d", settles.Add(1))
	eval[bool](t, b, `(console.debug(`+js(marker)+`), true)`)
	b.await(t, "the page's console messages", func() bool {
		return slices.ContainsFunc(b.messages, func(m chromedp.ConsoleMessage) bool { return m.Text == marker })
	}, func() string { return fmt.Sprintf("no %q among them", marker) })
}

func (b *browser) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// eval runs a JavaScript expression in the page and decodes its value.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// pageWait bounds a wait for the page: some waits include starting an
// agent in its box and a worktree, which took over 20 s on two busy
// cores. A passing test waits only as long as it must.
const pageWait = time.Minute

// waitScript is the script waitFor runs in the page: a promise that
// resolves once the condition (in place of its comment) holds, checked at
// once and again after every change of the DOM and every event that
// changes what is focused or shown without one (the location's hash,
// focus, a field's input). Nothing in it runs on a timer: a condition that
// never holds leaves it pending until the test's deadline.
const waitScript = `new Promise(resolve => {
	const holds = () => { try { return !!(/*condition*/) } catch (e) { return false } };
	if (holds()) return resolve(true);
	const events = ['hashchange', 'popstate', 'focusin', 'focusout', 'input', 'change', 'load'];
	const check = () => {
		if (!holds()) return;
		observer.disconnect();
		for (const e of events) window.removeEventListener(e, check, true);
		resolve(true);
	};
	const observer = new MutationObserver(check);
	observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
	for (const e of events) window.addEventListener(e, check, true);
})`

// waitFor waits until a boolean expression over the page holds, as the
// page changes (waitScript), not by asking again and again. It evaluates
// through DevTools (never through the page's eval, which the page's CSP
// forbids). A navigation ends the page's script; the wait goes on in the
// new document.
func (b *browser) waitFor(t *testing.T, what, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, testkit.Scale(pageWait))
	defer cancel()
	script := strings.Replace(waitScript, "/*condition*/", expr, 1)
	for {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](script, chromedp.EvalAwaitPromise))
		if err == nil {
			return
		}
		if jsErr := (*chromedp.ExceptionError)(nil); errors.As(err, &jsErr) {
			t.Fatalf("waiting for %s: the condition does not run (%s): %v", what, expr, err)
		}
		if ctx.Err() != nil {
			main, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById('main') ? document.getElementById('main').innerText : ''`))
			t.Fatalf("waited %v for %s (%s): %v; the page shows:\n%s\nconsole errors: %s\n(on a slow machine, set %s=4)",
				testkit.Scale(pageWait), what, expr, err, main, strings.Join(b.errors(), "\n"), testkit.SlowEnv)
		}
	}
}

// trackerFiles lists the tracker's files in dir (those under .sudocode
// that git does not ignore: records, config, specs) with their sizes and
// modification times, which the dashboard watches for changes.
func trackerFiles(t *testing.T, dir string) string {
	t.Helper()
	names := testkit.Git(t, dir, "ls-files", "--cached", "--others", "--exclude-standard", "--", store.DirName)
	if names == "" {
		t.Fatalf("no tracker files in %s", dir)
	}
	var sb strings.Builder
	for _, name := range strings.Split(names, "\n") {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "%s %d %s\n", name, fi.Size(), fi.ModTime().Format(time.RFC3339Nano))
	}
	return sb.String()
}

// errors returns the console errors and uncaught exceptions so far.
func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, m := range b.messages {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			out = append(out, m.String()+" at "+m.URL)
		}
	}
	return out
}

// screenshot captures the viewport, checks it and keeps it when asked.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	buf, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatalf("screenshot %s is not a PNG: %v", name, err)
	}
	if r := img.Bounds(); r.Dx() != viewW || r.Dy() != viewH {
		t.Errorf("screenshot %s is %dx%d, want %dx%d", name, r.Dx(), r.Dy(), viewW, viewH)
	}
	colors := map[uint32]bool{}
	for y := 0; y < img.Bounds().Dy(); y += 7 {
		for x := 0; x < img.Bounds().Dx(); x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colors[(r>>8)<<16|(g>>8)<<8|bl>>8] = true
		}
	}
	if len(colors) < 20 {
		t.Errorf("screenshot %s has %d colours: an empty page?", name, len(colors))
	}
	if dir := os.Getenv("SUDOCODE_SCREENSHOTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
			t.Error(err)
		}
	}
}

// connectMCP connects the SDK's Streamable HTTP client to url.
func connectMCP(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "browser-test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{browserToken}}}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// bearer sends its token with every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// call calls a tool that must succeed and returns its text.
func call(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(20*time.Second))
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	if res.IsError {
		t.Fatalf("%s failed: %s", tool, text)
	}
	return text
}

// js quotes s as a JavaScript string.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const evilMarkdown = "# Evil ruleset\n\nSome **bold** and `code`.\n\n<script>window.__pwned = 1</script>\n\n" +
	"<img src=x onerror=\"window.__pwned = 2\">\n\n[click](javascript:window.__pwned=3) [data](data:text/html,hi) [safe](https://go.dev/)\n\n" +
	"![pic](https://example.com/x.png)\n\n| a | b |\n|---|---|\n| <b>1</b> | 2 |\n"

func TestBrowserDashboard(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base, srv := startServe(t, f)
	if srv.Tasks == nil {
		t.Fatalf("tasks unavailable: %s", srv.TasksUnavailable)
	}

	// The board: one column per status, ready and blocked issues marked.
	files := trackerFiles(t, f.dir)
	b.do(t, chromedp.Navigate(base+"/?token="+browserToken))
	b.waitFor(t, "the board", `document.querySelectorAll('#board .column').length === 4`)
	cols := eval[[]string](t, b, `Array.from(document.querySelectorAll('#board .column')).map(c => c.dataset.status)`)
	if strings.Join(cols, ",") != "open,in_progress,blocked,closed" {
		t.Errorf("columns %v", cols)
	}
	card := func(id string) string { return `document.querySelector('.card[data-id=` + js(id) + `]')` }
	if !eval[bool](t, b, card(f.open)+`.querySelector('.badge.ready') !== null && `+card(f.open)+`.closest('.column').dataset.status === 'open'`) {
		t.Error("the ready issue is not marked ready in the open column")
	}
	if !eval[bool](t, b, card(f.waiting)+`.querySelector('.badge.blocked') !== null && `+card(f.waiting)+`.closest('.column').dataset.status === 'blocked' && `+
		card(f.waiting)+`.querySelector('.blockers').textContent.includes('Design the token store')`) {
		t.Error("the blocked issue is not in the blocked column, marked blocked, with its blocker's title")
	}
	if got := eval[string](t, b, card(f.progress)+`.querySelector('.card-title').textContent`); got != "Write <script>alert(1)</script> docs" {
		t.Errorf("a title with markup shows as %q, want the text itself", got)
	}
	if n := eval[int](t, b, `document.querySelectorAll('main script').length`); n != 0 {
		t.Errorf("%d script elements in the page's content", n)
	}
	b.waitFor(t, "the live indicator", `document.getElementById('live').textContent === 'live'`)
	b.screenshot(t, "board")
	// Reading does not count as a change: once the page's reads are done,
	// the board has been drawn once, and the reads left the tracker's
	// files, whose changes are what redraws it, as they were.
	b.settle(t)
	if n := eval[string](t, b, `document.body.dataset.rendered`); n != "1" {
		t.Errorf("the idle board was drawn %s times, want once", n)
	}
	if now := trackerFiles(t, f.dir); now != files {
		t.Errorf("reading the board changed the tracker's files:\n%s\nwere\n%s", now, files)
	}

	// An issue created through MCP appears without a reload.
	eval[bool](t, b, `(window.__sameDocument = true)`)
	tracker := connectMCP(t, base+serve.PathTracker)
	var created struct{ ID string }
	if err := json.Unmarshal([]byte(call(t, tracker, "create_issue", map[string]any{"title": "Created through MCP", "priority": 0})), &created); err != nil || created.ID == "" {
		t.Fatalf("create_issue: %v %+v", err, created)
	}
	b.waitFor(t, "the new issue on the board", card(created.ID)+` !== null && `+card(created.ID)+`.closest('.column').dataset.status === 'open'`)
	call(t, tracker, "update_issue", map[string]any{"issue_id": created.ID, "status": "in_progress"})
	b.waitFor(t, "the issue in the in_progress column", card(created.ID)+` !== null && `+card(created.ID)+`.closest('.column').dataset.status === 'in_progress'`)
	if !eval[bool](t, b, `window.__sameDocument === true`) {
		t.Error("the page was reloaded")
	}

	// A spec with its feedback at the anchored lines, the stale one flagged.
	eval[string](t, b, `location.hash = `+js("#/spec/"+f.spec))
	b.waitFor(t, "the spec", `document.getElementById('spec-source') !== null`)
	if !eval[bool](t, b, `(() => { const l = document.querySelector('#spec-source .line[data-line="8"]');
		return l && l.textContent.includes('Refresh tokens rotate') && l.nextElementSibling.classList.contains('line-fb') &&
		l.nextElementSibling.querySelector('.feedback[data-id=`+js(f.fbValid)+`]') !== null })()`) {
		t.Error("the feedback is not shown under line 8, where its anchor is now")
	}
	if !eval[bool](t, b, `document.querySelector('#stale-anchors .feedback[data-id=`+js(f.fbStale)+`] .badge.anchor-stale') !== null`) {
		t.Error("the stale anchor is not flagged")
	}
	if n := eval[int](t, b, `document.querySelectorAll('#spec-source .feedback').length`); n != 1 {
		t.Errorf("%d feedback cards among the lines, want 1 (the stale one is listed apart)", n)
	}
	b.screenshot(t, "spec")

	// Rulesets: one upserted through MCP appears, its markdown rendered
	// safely.
	eval[string](t, b, `location.hash = '#/rulesets'`)
	b.waitFor(t, "the ruleset list", `document.querySelector('.ruleset-card[data-name="go_style"]') !== null`)
	rules := connectMCP(t, base+serve.PathRulesets)
	call(t, rules, "upsert_ruleset", map[string]any{"name": "evil_md", "description": "tries <b>markup</b>", "markdown": evilMarkdown, "tags": []string{"test"}})
	b.waitFor(t, "the new ruleset in the list", `document.querySelector('.ruleset-card[data-name="evil_md"]') !== null`)
	eval[string](t, b, `location.hash = '#/ruleset/evil_md'`)
	b.waitFor(t, "the rendered ruleset", `document.querySelector('.ruleset-body h1') !== null`)
	checks := map[string]string{
		"a heading":               `document.querySelector('.ruleset-body h1').textContent === 'Evil ruleset'`,
		"bold and code":           `document.querySelector('.ruleset-body strong') !== null && document.querySelector('.ruleset-body code') !== null`,
		"a table":                 `document.querySelectorAll('.ruleset-body table td').length === 2`,
		"the script as text":      `document.querySelector('.ruleset-body').textContent.includes('<script>window.__pwned = 1</script>')`,
		"no script or img":        `document.querySelectorAll('main script, main img, main iframe').length === 0`,
		"no javascript: or data:": `Array.from(document.querySelectorAll('main a[href]')).every(a => /^(https?:|mailto:|#)/.test(a.getAttribute('href')))`,
		"the safe link":           `document.querySelector('.ruleset-body a[href="https://go.dev/"]') !== null`,
		"no handler attributes":   `Array.from(document.querySelectorAll('main *')).every(e => Array.from(e.attributes).every(a => !a.name.startsWith('on')))`,
		"nothing ran":             `window.__pwned === undefined`,
	}
	for what, expr := range checks {
		if !eval[bool](t, b, expr) {
			t.Errorf("ruleset markdown: want %s (%s)", what, expr)
		}
	}
	b.screenshot(t, "ruleset")

	// Tasks: a new task appears in the list, then its log streams as the
	// command prints; the command waits for a file the test creates once the
	// first line is on the page, so the later lines can only arrive live.
	eval[string](t, b, `location.hash = '#/tasks'`)
	b.waitFor(t, "the task list", `document.querySelector('main h1') && document.querySelector('main h1').textContent === 'Tasks'`)
	script := `echo line 1; while [ ! -e go.flag ]; do sleep 0.05; done; for i in 2 3; do echo line $i; sleep 0.2; done; echo hello > f.txt; git add f.txt; git -c user.name=t -c user.email=t@example.com commit -q -m add-f`
	cfg, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	task, err := srv.Tasks.Create(context.Background(), orchestrator.CreateInput{Agent: "COMMAND", Description: "Print three lines", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, "the task in the list", `document.querySelector('#task-list tr[data-id=`+js(task.ID)+`]') !== null`)
	eval[string](t, b, `location.hash = `+js("#/task/"+task.ID))
	line := func(n int) string {
		return `Array.from(document.querySelectorAll('#task-log .log-line .text')).some(e => e.textContent === 'line ` + fmt.Sprint(n) + `')`
	}
	b.waitFor(t, "line 1 in the log", line(1))
	if eval[bool](t, b, line(2)) {
		t.Fatal("line 2 is on the page before the command could print it")
	}
	if err := os.WriteFile(filepath.Join(task.WorktreePath, "go.flag"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, "line 2", line(2))
	b.waitFor(t, "line 3", line(3))
	b.waitFor(t, "the completed status", `document.querySelector('#task-status .badge').textContent === 'waiting for review'`)
	b.screenshot(t, "task-log")
	eval[bool](t, b, `(document.getElementById('tab-diff').click(), true)`)
	b.waitFor(t, "the branch diff", `document.querySelector('#task-diff pre.diff') !== null && document.querySelector('#task-diff pre.diff').textContent.includes('+hello')`)
	if !eval[bool](t, b, `document.querySelector('#task-diff .dl.add') !== null`) {
		t.Error("added lines are not marked")
	}
	b.screenshot(t, "task-diff")
	if !eval[bool](t, b, `window.__sameDocument === true`) {
		t.Error("the page was reloaded")
	}

	// Nothing went wrong in the page: no console error, no exception, no
	// CSP violation, no failed load.
	b.settle(t)
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserUnavailableParts: outside a git repository and before init,
// the page says what is missing and why, with no console errors.
func TestBrowserUnavailableParts(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := serve.New(ctx, serve.Options{Dir: dir, Rulesets: f.rules, Version: "test", Worktrees: t.TempDir(), Token: browserToken})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	defer func() {
		cancel()
		<-done
		srv.Close()
	}()
	base := "http://" + ln.Addr().String()
	b.do(t, chromedp.Navigate(base+"/?token="+browserToken+"#/tasks"))
	b.waitFor(t, "the tasks problem", `document.querySelector('main .problem') !== null`)
	if got := eval[string](t, b, `document.querySelector('main .problem').textContent`); !strings.Contains(got, "not in a git repository") {
		t.Errorf("tasks problem %q", got)
	}
	eval[string](t, b, `location.hash = '#/board'`)
	b.waitFor(t, "the tracker problem", `document.querySelector('main .problem') !== null && document.querySelector('main .problem').textContent.includes('.sudocode')`)
	// init through MCP: the board appears by itself.
	tracker := connectMCP(t, base+serve.PathTracker)
	call(t, tracker, "init", map[string]any{})
	b.waitFor(t, "the board after init", `document.getElementById('board') !== null`)
	b.screenshot(t, "unavailable")
	// The 4xx/5xx answers the page handles are logged by Chromium as
	// failed loads; nothing else may be.
	for _, e := range b.errors() {
		if !strings.Contains(e, "status of 503") && !strings.Contains(e, "status of 404") {
			t.Errorf("console error: %s", e)
		}
	}
	if resp, err := (&http.Client{Transport: bearer{browserToken}}).Get(base + serve.PathAgent); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("GET %s: %d, want 503", serve.PathAgent, resp.StatusCode)
		}
	}
}
