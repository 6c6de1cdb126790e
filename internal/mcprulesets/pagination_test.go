package mcprulesets_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/mcprulesets"
	"github.com/sudocode/sudocode/internal/racesize"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// fill stores n rulesets named prefix_00000…, ten created each second from
// start, through the store (several writers at once).
func fill(t testing.TB, s rulesets.Store, prefix string, n int, start time.Time) []string {
	t.Helper()
	names := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				name := fmt.Sprintf("%s_%05d", prefix, n-1-i) // names against the order of creation
				names[i] = name
				desc, md := "Rules "+name, "# "+name
				p := rulesets.Patch{Name: name, Description: &desc, Markdown: &md, Tags: []string{"paged"}, SetTags: true}
				if _, err := s.Upsert(context.Background(), p, start.Add(time.Duration(i/10)*time.Second)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return names
}

var (
	itemName   = regexp.MustCompile(`(?m)^- \*\*([a-z0-9_]+)\*\*: `)
	nextCursor = regexp.MustCompile(`\nNext cursor: (\S+)\n$`)
	foundLine  = regexp.MustCompile(`^Found (\d+) ruleset\(s\)`)
)

// rulesetPage is one page of list_rulesets or search_rulesets.
type rulesetPage struct {
	text       string
	names      []string
	found      int
	next       string
	structured *rulesets.Result // nil when absent
}

// page calls a list tool and reads its text and structured content, which
// must agree.
func (f *fixture) page(tool string, args map[string]any) rulesetPage {
	f.t.Helper()
	res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		f.t.Fatalf("%s(%v): %v %+v", tool, args, err, res)
	}
	f.schemas.Check(f.t, tool, res)
	p := rulesetPage{text: res.Content[0].(*mcp.TextContent).Text}
	for _, m := range itemName.FindAllStringSubmatch(p.text, -1) {
		p.names = append(p.names, m[1])
	}
	if m := foundLine.FindStringSubmatch(p.text); m != nil {
		fmt.Sscan(m[1], &p.found)
	}
	if m := nextCursor.FindStringSubmatch(p.text); m != nil {
		p.next = m[1]
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		p.structured = new(rulesets.Result)
		if err := json.Unmarshal(b, p.structured); err != nil {
			f.t.Fatal(err)
		}
		var names []string
		for _, r := range p.structured.Rulesets {
			names = append(names, r.Name)
		}
		if !slices.Equal(names, p.names) || p.structured.NextCursor != p.next || p.structured.Total != p.found {
			f.t.Fatalf("%s: structured content %s disagrees with the text %q", tool, b, p.text)
		}
	} else if p.next != "" {
		f.t.Fatalf("%s: a next cursor without structured content", tool)
	}
	return p
}

// walk pages through a list tool, calling between after each page but the
// last, and returns the pages.
func (f *fixture) walk(tool string, args map[string]any, between func()) []rulesetPage {
	f.t.Helper()
	var pages []rulesetPage
	a := map[string]any{}
	for k, v := range args {
		a[k] = v
	}
	for {
		p := f.page(tool, a)
		pages = append(pages, p)
		if p.next == "" {
			return pages
		}
		if len(pages) > 20_000 {
			f.t.Fatalf("%s: no end after %d pages", tool, len(pages))
		}
		if between != nil {
			between()
		}
		a["cursor"] = p.next
	}
}

func allNames(pages []rulesetPage) []string {
	var out []string
	for _, p := range pages {
		out = append(out, p.names...)
	}
	return out
}

// A walk of 10,000 rulesets (2,000 under the race detector: still 20
// pages of the default size and 2 of the largest) with cursors, on each
// store, lists each once in list order (oldest first, then by name), in
// pages of limit; meanwhile rulesets are created (older and newer than the
// position reached) and updated, and none that existed at the start is
// missed or repeated.
func TestListRulesetsWalkALargeLibrary(t *testing.T) {
	n := racesize.Of(10_000, 2_000)
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			store := s.open(t)
			t0 := time.Date(2025, 10, 29, 10, 30, 0, 0, time.UTC)
			fill(t, store, "rules", n, t0)
			all, err := store.Search(context.Background(), "*")
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, r := range all {
				want = append(want, r.Name)
			}
			f := connect(t, store)

			// Pages of the default size and of the largest; still.
			for _, limit := range []int{0, 1000} {
				args := map[string]any{}
				if limit > 0 {
					args["limit"] = limit
				}
				pages := f.walk("list_rulesets", args, nil)
				if got := allNames(pages); !slices.Equal(got, want) {
					t.Fatalf("list_rulesets in pages (limit %d): %d names, not the %d of the list in order", limit, len(got), len(want))
				}
				size := max(limit, rulesets.DefaultPageSize)
				if len(pages) != n/size {
					t.Errorf("limit %d: %d pages", limit, len(pages))
				}
				for i, p := range pages {
					if p.found != n || len(p.names) != size {
						t.Fatalf("page %d: found %d, %d names", i, p.found, len(p.names))
					}
				}
			}

			// While the library changes.
			step := 0
			pages := f.walk("list_rulesets", map[string]any{"limit": 250}, func() {
				step++
				fill(t, store, fmt.Sprintf("old%d", step), 3, t0.Add(-time.Hour))   // before the position reached
				fill(t, store, fmt.Sprintf("new%d", step), 3, t0.Add(24*time.Hour)) // after it
				name := want[len(want)-step]                                        // an update keeps its place
				desc := "changed"
				if _, err := store.Upsert(context.Background(), rulesets.Patch{Name: name, Description: &desc}, t0.Add(48*time.Hour)); err != nil {
					t.Fatal(err)
				}
			})
			got := allNames(pages)
			seen := map[string]int{}
			for _, n := range got {
				seen[n]++
			}
			var old []string
			for _, n := range got {
				if seen[n] > 1 {
					t.Fatalf("%s listed %d times", n, seen[n])
				}
				if strings.HasPrefix(n, "rules_") {
					old = append(old, n)
				}
				if strings.HasPrefix(n, "old") {
					t.Errorf("%s, created before the position reached, was listed", n)
				}
			}
			if !slices.Equal(old, want) {
				t.Fatalf("the %d rulesets of the start: %d listed, not each once in order", n, len(old))
			}
			if seen["new1_00000"] != 1 {
				t.Errorf("a ruleset created after the position reached was not listed")
			}
			t.Logf("%d pages, %d rulesets listed", len(pages), len(got))

			// search_rulesets pages the same way.
			var wantPy []string
			for _, n := range want {
				if strings.HasSuffix(n, "7") {
					wantPy = append(wantPy, n)
				}
			}
			spages := f.walk("search_rulesets", map[string]any{"pattern": "rules_*7", "limit": 90}, nil)
			if got := allNames(spages); !slices.Equal(got, wantPy) {
				t.Fatalf("search_rulesets in pages: %d names, want %d", len(got), len(wantPy))
			}
			if !strings.HasPrefix(spages[1].text, fmt.Sprintf("Found %d ruleset(s) matching 'rules_*7':\n\n", len(wantPy))) {
				t.Errorf("search page: %q", spages[1].text[:80])
			}
		})
	}
}

// The text the ruleset server's requirement fixes
// (docs/servers.md#ruleset-tools) is unchanged when the list fits a page and
// no cursor is given; a page that more follow ends with "Next cursor: …"; every page
// carries structured content (the tool publishes its output schema), which
// agrees with the text, and has a nextCursor only when more follow.
func TestListPagesText(t *testing.T) {
	forEachStore(t, func(t *testing.T, f *fixture) {
		createPython(f)
		f.clock.Set("2025-10-29 11:00:00")
		f.ok("upsert_ruleset", map[string]any{"name": "go_conventions", "description": "Go coding conventions and best practices",
			"tags": []string{"go", "conventions"}, "markdown": "# Go"}, "Successfully upserted ruleset 'go_conventions'")
		whole := f.page("list_rulesets", map[string]any{})
		if whole.structured == nil || whole.structured.NextCursor != "" || whole.structured.Total != 2 || whole.next != "" {
			t.Fatalf("a list that fits a page: %+v", whole)
		}
		if f.page("list_rulesets", map[string]any{"limit": 2}).text != whole.text {
			t.Fatalf("limit 2 of 2 changed the text")
		}
		first := f.page("list_rulesets", map[string]any{"limit": 1})
		item := "- **python_style_guide**: Python coding style guidelines for team projects\n  Tags: [python style pep8]\n  Created: 2025-10-29 10:30:00, Modified: 2025-10-29 10:30:00\n\n"
		if want := "Found 2 ruleset(s):\n\n" + item + "Next cursor: " + first.next + "\n"; first.text != want || first.next == "" {
			t.Fatalf("first page:\n%q\nwant\n%q", first.text, want)
		}
		last := f.page("list_rulesets", map[string]any{"limit": 1, "cursor": first.next})
		if want := "Found 2 ruleset(s):\n\n- **go_conventions**: Go coding conventions and best practices\n  Tags: [go conventions]\n  Created: 2025-10-29 11:00:00, Modified: 2025-10-29 11:00:00\n\n"; last.text != want {
			t.Fatalf("last page:\n%q\nwant\n%q", last.text, want)
		}
		if last.structured == nil || last.structured.NextCursor != "" || last.structured.Total != 2 {
			t.Fatalf("last page's structured content: %+v", last.structured)
		}
		// The cursor of list_rulesets is that of search_rulesets '*'.
		if p := f.page("search_rulesets", map[string]any{"pattern": "*", "limit": 1, "cursor": first.next}); !slices.Equal(p.names, []string{"go_conventions"}) {
			t.Fatalf("search '*' after list's cursor: %v", p.names)
		}
		// Deleting the ruleset a cursor points after does not lose the place.
		f.ok("delete_ruleset", map[string]any{"name": "python_style_guide"}, "Successfully deleted ruleset 'python_style_guide'")
		if p := f.page("list_rulesets", map[string]any{"limit": 1, "cursor": first.next}); !slices.Equal(p.names, []string{"go_conventions"}) {
			t.Fatalf("after the deletion: %v", p.names)
		}
	})
}

// An invalid cursor is the JSON-RPC error -32602 for both list tools.
func TestInvalidCursor(t *testing.T) {
	forEachFilledStore(t, 5, func(t *testing.T, f *fixture) {
		listCursor := f.page("list_rulesets", map[string]any{"limit": 2}).next
		searchCursor := f.page("search_rulesets", map[string]any{"pattern": "rules_*", "limit": 2}).next
		raw := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
		for _, c := range []struct {
			tool   string
			args   map[string]any
			cursor string
			want   string
		}{
			{"list_rulesets", nil, "garbage!", "invalid cursor: not a cursor this server made"},
			{"list_rulesets", nil, searchCursor, "invalid cursor: it was made for other filters; repeat the query's filters with its cursor"},
			{"search_rulesets", map[string]any{"pattern": "rules_*"}, listCursor, "invalid cursor: it was made for other filters; repeat the query's filters with its cursor"},
			{"search_rulesets", map[string]any{"pattern": "rules_?"}, searchCursor, "invalid cursor: it was made for other filters; repeat the query's filters with its cursor"},
			{"list_rulesets", nil, raw(`{"v":2,"l":"rulesets","k":{}}`), "invalid cursor: version 2, this server makes version 1"},
			{"list_rulesets", nil, raw(`{"v":1,"l":"issues","k":{}}`), "invalid cursor: it belongs to another list (issues), not rulesets"},
			{"list_rulesets", nil, raw(`{"v":1,"l":"rulesets","f":"` + fingerprintOf(t, listCursor) + `","k":{"c":"yesterday","n":"rules_00001"}}`), "invalid cursor: malformed position"},
			{"list_rulesets", nil, raw(`{"v":1,"l":"rulesets","f":"` + fingerprintOf(t, listCursor) + `","k":{"c":"2025-01-01T00:00:00Z","n":"Bad-Name"}}`), "invalid cursor: malformed position"},
			{"list_rulesets", nil, raw(`{"v":1,"l":"rulesets","f":"` + fingerprintOf(t, listCursor) + `","k":{"x":1}}`), "invalid cursor: malformed position"},
		} {
			args := map[string]any{"cursor": c.cursor}
			for k, v := range c.args {
				args[k] = v
			}
			f.protocolError(c.tool, args, -32602, c.want)
		}
		// A well-formed cursor made by hand for this list is a position.
		p := f.page("list_rulesets", map[string]any{"cursor": raw(`{"v":1,"l":"rulesets","f":"` + fingerprintOf(t, listCursor) + `","k":{"c":"2025-01-01T00:00:00Z","n":"rules_00001"}}`)})
		if len(p.names) != 3 {
			t.Errorf("after a hand-made position: %v", p.names)
		}
	})
}

// fingerprintOf reads the filters' fingerprint of a cursor.
func fingerprintOf(t *testing.T, c string) string {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		t.Fatal(err)
	}
	var env struct{ F string }
	json.Unmarshal(b, &env)
	return env.F
}

// forEachFilledStore runs fn on a server over each store holding n
// rulesets rules_00000…, created from 2025-01-01 on.
func forEachFilledStore(t *testing.T, n int, fn func(t *testing.T, f *fixture)) {
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			store := s.open(t)
			fill(t, store, "rules", n, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
			fn(t, connect(t, store))
		})
	}
}

// tools/list and resources/templates/list page with the SDK's cursors when
// the page size is small; an invalid cursor is -32602 for them and for
// resources/list.
func TestProtocolListsPage(t *testing.T) {
	ctx := context.Background()
	store := stores[0].open(t)
	defer store.Close()
	lib := rulesets.Library{Store: store}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var want []string
	for _, size := range []int{0, 1, 2} {
		server := mcprulesets.NewWithOptions(lib, mcprulesets.Options{Logger: logger, PageSize: size})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		pages := 0
		params := &mcp.ListToolsParams{}
		for {
			res, err := cs.ListTools(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
			}
			if res.NextCursor == "" {
				break
			}
			params.Cursor = res.NextCursor
		}
		if size == 0 {
			want = names
		} else if !slices.Equal(names, want) || pages != (len(want)+size-1)/size {
			t.Errorf("tools/list in pages of %d: %v in %d pages, want %v", size, names, pages, want)
		}
		var templates []string
		for rt, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			templates = append(templates, rt.URITemplate)
		}
		if !slices.Equal(templates, []string{"ruleset-history://{name}", "ruleset://{name}"}) {
			t.Errorf("templates %v", templates)
		}
		_, err = cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: "garbage"})
		checkRPCError(t, err, -32602, "")
		_, err = cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: "garbage"})
		checkRPCError(t, err, -32602, "")
		_, err = cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: "garbage"})
		checkRPCError(t, err, -32602, "")
		cs.Close()
		ss.Wait()
	}
}
