package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sudocode/sudocode/internal/tracker/store"
)

// event is one Server-Sent Event.
type event struct {
	Name string
	Data any
}

// hub fans events out to the open /api/events streams. A slow page never
// blocks a publisher: each subscriber has a small buffer, and an event that
// does not fit is dropped after a "resync" is queued (every event only
// tells the page to reload a part, so one resync covers everything lost).
type hub struct {
	mu     sync.Mutex
	subs   map[chan event]struct{}
	closed bool
	done   chan struct{}
}

func newHub() *hub { return &hub{subs: map[chan event]struct{}{}, done: make(chan struct{})} }

func (h *hub) subscribe() (chan event, func()) {
	ch := make(chan event, 16)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		close(ch)
		return ch, func() {}
	}
	h.subs[ch] = struct{}{}
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[ch]; ok {
			delete(h.subs, ch)
			close(ch)
		}
	}
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

func (h *hub) publish(e event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- e:
		default:
			// Full: drop the oldest, then ask for a full reload.
			select {
			case <-ch:
			default:
			}
			select {
			case ch <- event{Name: "resync", Data: map[string]string{}}:
			default:
			}
		}
	}
}

func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	close(h.done)
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
}

// keepAlive is how often an idle stream gets a comment, so proxies and
// browsers keep it open.
const keepAlive = 15 * time.Second

// sse starts an event stream; it returns nil when the writer cannot flush.
func sse(w http.ResponseWriter) *sseWriter {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: rc}
	if err := s.comment("connected"); err != nil {
		return nil
	}
	return s
}

type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// send writes one event (data as JSON, on one line) and flushes it.
func (s *sseWriter) send(id, name string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	var sb strings.Builder
	if id != "" {
		fmt.Fprintf(&sb, "id: %s\n", id)
	}
	fmt.Fprintf(&sb, "event: %s\ndata: %s\n\n", name, b)
	if _, err := s.w.Write([]byte(sb.String())); err != nil {
		return err
	}
	return s.rc.Flush()
}

func (s *sseWriter) comment(text string) error {
	if _, err := s.w.Write([]byte(": " + text + "\n\n")); err != nil {
		return err
	}
	return s.rc.Flush()
}

// events is /api/events: "tracker", "rulesets" and "tasks" events tell the
// page which part to reload; "resync" asks for everything.
func (d *Dashboard) events(w http.ResponseWriter, r *http.Request) {
	ch, unsub := d.subscribeEvents(r.Context())
	defer unsub()
	s := sse(w)
	if s == nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return
			}
			if s.send("", e.Name, e.Data) != nil {
				return
			}
		case <-tick.C:
			if s.comment("ping") != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// watchTracker polls the tracker's files (size and modification time of
// the JSONL files, the config and the spec bodies) and publishes a
// "tracker" event when they differ from last: the CLI, another server or a git
// checkout change them from other processes, and this one's MCP tools
// write the same files.
func (d *Dashboard) watchTracker(ctx context.Context, last string) {
	defer d.wg.Done()
	t := time.NewTicker(d.opts.TrackerPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fp := trackerFingerprint(d.opts.Dir)
		if fp != last {
			last = fp
			d.hub.publish(event{Name: TopicTracker, Data: map[string]string{"source": "files"}})
		}
	}
}

// trackerFingerprint is a string that changes whenever a tracker file does.
func trackerFingerprint(dir string) string {
	tdir, err := store.FindFrom(dir)
	if err != nil {
		return "none"
	}
	var sb strings.Builder
	sb.WriteString(tdir)
	stat := func(p string) {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&sb, "|%s:%d:%d", filepath.Base(p), fi.Size(), fi.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&sb, "|%s:-", filepath.Base(p))
		}
	}
	sb.WriteString("|" + store.Stamp(tdir))
	entries, _ := os.ReadDir(filepath.Join(tdir, store.SpecsDir))
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		stat(filepath.Join(tdir, store.SpecsDir, n))
	}
	return sb.String()
}

// watchRulesets polls the ruleset library while a page is open, for
// changes other processes make (the CLI, another server on the same store
// or Valkey); changes made through this process's MCP server are pushed at
// once by Changed. The first page to connect takes the first look
// (primeRulesets), so a change made once it is connected is reported.
func (d *Dashboard) watchRulesets(ctx context.Context) {
	defer d.wg.Done()
	if d.opts.Rulesets.Store == nil {
		return
	}
	t := time.NewTicker(d.opts.RulesetsPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		d.rs.mu.Lock()
		if d.hub.count() == 0 {
			d.rs.primed = false // a page that connects reloads everything anyway
		}
		primed := d.rs.primed
		d.rs.mu.Unlock()
		if !primed {
			continue
		}
		fp, ok := d.rulesetsFingerprint(ctx)
		if !ok {
			continue
		}
		d.rs.mu.Lock()
		if d.rs.primed && fp != d.rs.last {
			d.hub.publish(event{Name: TopicRulesets, Data: map[string]string{"source": "poll"}})
		}
		d.rs.last = fp
		d.rs.mu.Unlock()
	}
}

// rulesetsWatch is what the ruleset watcher last saw.
type rulesetsWatch struct {
	mu     sync.Mutex
	last   string // the library's fingerprint
	primed bool   // last is set: a page is open
}

// subscribeEvents subscribes a page to the hub and, for the first page,
// takes the ruleset watcher's first look before the page hears anything.
func (d *Dashboard) subscribeEvents(ctx context.Context) (chan event, func()) {
	d.rs.mu.Lock()
	defer d.rs.mu.Unlock()
	ch, unsub := d.hub.subscribe()
	if d.opts.Rulesets.Store != nil && !d.rs.primed {
		if fp, ok := d.rulesetsFingerprint(ctx); ok {
			d.rs.last, d.rs.primed = fp, true
		}
	}
	return ch, unsub
}

// rulesetsFingerprint is a string that changes whenever a ruleset does.
func (d *Dashboard) rulesetsFingerprint(ctx context.Context) (string, bool) {
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	items, err := d.opts.Rulesets.List(c)
	if err != nil {
		return "", false
	}
	var sb strings.Builder
	for _, it := range items {
		fmt.Fprintf(&sb, "%s@%d|", it.Name, it.LastModified.UnixNano())
	}
	return sb.String(), true
}
