package store_test

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackertest"
)

// graph builds a tracker from a compact description and maps ids back to
// names.
//
// An item is "NAME [spec] [pN] [@assignee] [status]", created in order (so
// created_at follows the order); an edge is "FROM TYPE TO", made with Link.
type graph struct {
	e     *env
	ids   map[string]string // name → id
	names map[string]string // id → name
}

func buildGraph(t *testing.T, items, edges []string) *graph {
	t.Helper()
	g := &graph{e: newEnv(t), ids: map[string]string{}, names: map[string]string{}}
	for _, it := range items {
		f := strings.Fields(it)
		name, isSpec, status := f[0], false, ""
		var prio *int
		var assignee *string
		for _, tok := range f[1:] {
			switch {
			case tok == "spec":
				isSpec = true
			case len(tok) == 2 && tok[0] == 'p' && tok[1] >= '0' && tok[1] <= '9':
				n, _ := strconv.Atoi(tok[1:])
				prio = &n
			case strings.HasPrefix(tok, "@"):
				assignee = new(tok[1:])
			default:
				status = tok
			}
		}
		var id string
		if isSpec {
			id = g.e.spec(name, store.SpecInput{Priority: prio, Design: "# " + name + "\n"})
			if status != "" {
				if _, err := g.e.r.UpdateSpec(g.e.ctx, id, store.SpecPatch{Status: &status}); err != nil {
					t.Fatal(err)
				}
			}
		} else {
			id = g.e.issue(name, store.IssueInput{Priority: prio, Assignee: assignee})
			if status != "" {
				if _, err := g.e.r.UpdateIssue(g.e.ctx, id, store.IssuePatch{Status: &status}); err != nil {
					t.Fatal(err)
				}
			}
		}
		g.ids[name], g.names[id] = id, name
	}
	for _, ed := range edges {
		f := strings.Fields(ed)
		g.e.link(g.ids[f[0]], g.ids[f[2]], f[1])
	}
	return g
}

func (g *graph) compactNames(items *[]tracker.Compact) []string {
	if items == nil {
		return nil
	}
	out := []string{}
	for _, c := range *items {
		out = append(out, g.names[c.ID])
	}
	return out
}

// blockedNames renders blocked items as "NAME: B1, B2 via P".
func (g *graph) blockedNames(items *[]tracker.BlockedItem) []string {
	if items == nil {
		return nil
	}
	out := []string{}
	for _, it := range *items {
		out = append(out, g.name(it.ID)+": "+g.blockers(it.BlockedBy))
	}
	return out
}

// blockers renders blockers in their order: own first, then each
// ancestor's, nearest first; within one of these groups, by name.
func (g *graph) blockers(bs []tracker.Blocker) string {
	var parts []string
	for i := 0; i < len(bs); {
		j := i
		var group []string
		for ; j < len(bs) && reflect.DeepEqual(bs[j].Via, bs[i].Via); j++ {
			s := g.name(bs[j].ID)
			if bs[j].Via != nil {
				s += " via " + g.name(*bs[j].Via)
			}
			group = append(group, s)
		}
		sort.Strings(group)
		parts = append(parts, group...)
		i = j
	}
	return strings.Join(parts, ", ")
}

func (g *graph) name(id string) string {
	if n, ok := g.names[id]; ok {
		return n
	}
	return "?" + id
}

func TestReadyAndBlocked(t *testing.T) {
	tests := []struct {
		name         string
		items, edges []string
		opts         store.ReadyOptions // Issues and Specs are always set
		ready        []string           // issues, in order
		readySpecs   []string
		blocked      []string // "NAME: blockers", in order
		blockedSpecs []string
	}{
		{name: "blocks: from waits for to",
			items: []string{"A", "B"}, edges: []string{"A blocks B"},
			ready: []string{"B"}, blocked: []string{"A: B"}},
		{name: "depends-on has the direction of blocks",
			items: []string{"A", "B"}, edges: []string{"A depends-on B"},
			ready: []string{"B"}, blocked: []string{"A: B"}},
		{name: "a closed blocker no longer blocks",
			items: []string{"A", "B closed"}, edges: []string{"A blocks B"},
			ready: []string{"A"}, blocked: []string{}},
		{name: "an in_progress blocker still blocks",
			items: []string{"A", "B in_progress"}, edges: []string{"A blocks B"},
			ready: []string{}, blocked: []string{"A: B"}},
		{name: "several blockers, only the unfinished listed",
			items: []string{"A", "B", "C closed", "D"}, edges: []string{"A blocks B", "A depends-on C", "A blocks D"},
			ready: []string{"B", "D"}, blocked: []string{"A: B, D"}},
		{name: "a draft spec blocks an issue",
			items: []string{"A", "S spec"}, edges: []string{"A blocks S"},
			ready: []string{}, readySpecs: []string{"S"}, blocked: []string{"A: S"}},
		{name: "a spec in review blocks",
			items: []string{"A", "S spec review"}, edges: []string{"A depends-on S"},
			ready: []string{}, readySpecs: []string{"S"}, blocked: []string{"A: S"}},
		{name: "an approved spec is done",
			items: []string{"A", "S spec approved"}, edges: []string{"A blocks S"},
			ready: []string{"A"}, readySpecs: []string{}, blocked: []string{}},
		{name: "a deprecated spec is done",
			items: []string{"A", "S spec deprecated"}, edges: []string{"A depends-on S"},
			ready: []string{"A"}, readySpecs: []string{}, blocked: []string{}},
		{name: "parent-child passes blockers down two levels, via naming the ancestor",
			items: []string{"G", "P", "C", "X"}, edges: []string{"G parent-child P", "P parent-child C", "G blocks X"},
			ready: []string{"X"}, blocked: []string{"G: X", "P: X via G", "C: X via G"}},
		{name: "three levels, own blockers first then nearest ancestor's",
			items: []string{"R", "G", "P", "C", "X", "Y"},
			edges: []string{"R parent-child G", "G parent-child P", "P parent-child C", "R blocks X", "P depends-on Y"},
			ready: []string{"X", "Y"}, blocked: []string{"R: X", "G: X via R", "P: Y, X via R", "C: Y via P, X via R"}},
		{name: "a child is blocked while its parent is not",
			items: []string{"P", "C", "X"}, edges: []string{"P parent-child C", "C blocks X"},
			ready: []string{"P", "X"}, blocked: []string{"C: X"}},
		{name: "an inherited blocker that is closed releases the child",
			items: []string{"P", "C", "X closed"}, edges: []string{"P parent-child C", "P blocks X"},
			ready: []string{"P", "C"}, blocked: []string{}},
		{name: "a child with two parents inherits through the blocked one",
			items: []string{"P1", "P2", "C", "X"}, edges: []string{"P1 parent-child C", "P2 parent-child C", "P2 blocks X"},
			ready: []string{"P1", "X"}, blocked: []string{"P2: X", "C: X via P2"}},
		{name: "a closed parent still passes its blockers down",
			items: []string{"P closed", "C", "X"}, edges: []string{"P parent-child C", "P blocks X"},
			ready: []string{"X"}, blocked: []string{"C: X via P"}},
		{name: "in_progress and blocked issues are never ready; a blocked status lists no blocker",
			items: []string{"A in_progress", "B blocked", "C", "D closed"},
			ready: []string{"C"}, blocked: []string{"B: "}},
		{name: "priority first, then the oldest",
			items: []string{"A p3", "B p0", "C", "D p0", "E p4", "F p2"},
			ready: []string{"B", "D", "C", "F", "A", "E"}},
		{name: "priority filter",
			items: []string{"A p3", "B p0", "C", "D p0", "S spec p0", "T spec"},
			opts:  store.ReadyOptions{Priority: new(0)},
			ready: []string{"B", "D"}, readySpecs: []string{"S"}},
		{name: "assignee filter",
			items: []string{"A @ann", "B @bob", "C", "D @ann p1"},
			opts:  store.ReadyOptions{Assignee: "ann"},
			ready: []string{"D", "A"}},
		{name: "assignee filter keeps blocked issues out",
			items: []string{"A @ann", "B @ann", "X"}, edges: []string{"A blocks X"},
			opts:  store.ReadyOptions{Assignee: "ann"},
			ready: []string{"B"}, blocked: []string{"A: X"}},
		{name: "limit",
			items: []string{"A", "B", "C", "D p1", "S spec", "T spec", "U spec"},
			opts:  store.ReadyOptions{Limit: 2},
			ready: []string{"D", "A"}, readySpecs: []string{"S", "T"}},
		{name: "limit 0 is the default of 10",
			items: []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L"},
			ready: []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J"}},
		{name: "draft and review specs are ready, approved and deprecated are not",
			items: []string{"S1 spec", "S2 spec review", "S3 spec approved", "S4 spec deprecated", "S5 spec p1"},
			ready: []string{}, readySpecs: []string{"S5", "S1", "S2"}},
		{name: "a spec waits for a spec",
			items: []string{"S1 spec", "S2 spec"}, edges: []string{"S1 blocks S2"},
			readySpecs: []string{"S2"}, blockedSpecs: []string{"S1: S2"}},
		{name: "a spec waits for an issue, and is released when it closes",
			items: []string{"S1 spec", "S2 spec", "A", "B closed"}, edges: []string{"S1 depends-on A", "S2 depends-on B"},
			ready: []string{"A"}, readySpecs: []string{"S2"}, blockedSpecs: []string{"S1: A"}},
		{name: "parent-child between specs passes blockers down",
			items: []string{"S1 spec", "S2 spec", "S3 spec"}, edges: []string{"S1 parent-child S2", "S1 blocks S3"},
			readySpecs: []string{"S3"}, blockedSpecs: []string{"S1: S3", "S2: S3 via S1"}},
		{name: "non-blocking types never block",
			items: []string{"A", "B", "C", "D", "E", "S spec"},
			edges: []string{"A implements S", "A references B", "B discovered-from C", "C related D", "D references A", "S references E", "E related S"},
			ready: []string{"A", "B", "C", "D", "E"}, readySpecs: []string{"S"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := buildGraph(t, tc.items, tc.edges)
			e := g.e
			o := tc.opts
			o.Issues, o.Specs = true, true
			res, err := e.r.Ready(e.ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			want := func(w []string) []string {
				if w == nil {
					return []string{}
				}
				return w
			}
			if got := g.compactNames(res.Issues); !reflect.DeepEqual(got, want(tc.ready)) {
				t.Errorf("ready issues = %q, want %q", got, want(tc.ready))
			}
			if got := g.compactNames(res.Specs); !reflect.DeepEqual(got, want(tc.readySpecs)) {
				t.Errorf("ready specs = %q, want %q", got, want(tc.readySpecs))
			}
			bl, err := e.r.Blocked(e.ctx, store.BlockedOptions{Issues: true, Specs: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := g.blockedNames(bl.Issues); !reflect.DeepEqual(got, want(tc.blocked)) {
				t.Errorf("blocked issues = %q, want %q", got, want(tc.blocked))
			}
			if got := g.blockedNames(bl.Specs); !reflect.DeepEqual(got, want(tc.blockedSpecs)) {
				t.Errorf("blocked specs = %q, want %q", got, want(tc.blockedSpecs))
			}

			// show's blocked_by agrees with blocked's for every issue, and
			// stats and status count what the lists hold.
			byID := map[string]string{}
			for _, it := range *bl.Issues {
				byID[it.ID] = g.blockers(it.BlockedBy)
			}
			nIssues := 0
			for name, id := range g.ids {
				if strings.HasPrefix(id, "tt-spec-") {
					continue
				}
				nIssues++
				d, err := e.r.ShowIssue(e.ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if d.Status == tracker.IssueClosed {
					continue // done: not listed as blocked, whatever it waited for
				}
				if got := g.blockers(d.BlockedBy); got != byID[id] {
					t.Errorf("show %s: blocked_by %q, blocked lists %q", name, got, byID[id])
				}
			}
			all, err := e.r.Ready(e.ctx, store.ReadyOptions{Issues: true, Specs: true, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			st, err := e.r.Stats(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Issues.Ready != len(*all.Issues) || st.Issues.Blocked != len(*bl.Issues) || st.Specs.Ready != len(*all.Specs) {
				t.Errorf("stats: issues ready %d blocked %d, specs ready %d; the lists hold %d, %d, %d",
					st.Issues.Ready, st.Issues.Blocked, st.Specs.Ready, len(*all.Issues), len(*bl.Issues), len(*all.Specs))
			}
			status, err := e.r.Status(e.ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := g.idsNames(status.Issues.ReadyIDs); !reflect.DeepEqual(got, g.compactNames(all.Issues)) {
				t.Errorf("status ready_ids = %q, ready lists %q", got, g.compactNames(all.Issues))
			}
			var blockedNames []string
			for _, it := range *bl.Issues {
				blockedNames = append(blockedNames, g.names[it.ID])
			}
			if got := g.idsNames(status.Issues.BlockedIDs); !reflect.DeepEqual(got, want(blockedNames)) {
				t.Errorf("status blocked_ids = %q, blocked lists %q", got, blockedNames)
			}
			if status.Issues.Total != nIssues {
				t.Errorf("status: %d issues, want %d", status.Issues.Total, nIssues)
			}
		})
	}
}

func (g *graph) idsNames(ids []string) []string {
	out := []string{}
	for _, id := range ids {
		out = append(out, g.name(id))
	}
	return out
}

// TestReadyOnlyWhatIsAskedFor: each list is present only when asked for.
func TestReadyOnlyWhatIsAskedFor(t *testing.T) {
	g := buildGraph(t, []string{"A", "S spec"}, nil)
	e := g.e
	r, err := e.r.Ready(e.ctx, store.ReadyOptions{Issues: true})
	if err != nil || r.Issues == nil || r.Specs != nil {
		t.Errorf("ready issues only: %+v, %v", r, err)
	}
	r, err = e.r.Ready(e.ctx, store.ReadyOptions{Specs: true})
	if err != nil || r.Issues != nil || r.Specs == nil || len(*r.Specs) != 1 {
		t.Errorf("ready specs only: %+v, %v", r, err)
	}
	b, err := e.r.Blocked(e.ctx, store.BlockedOptions{Specs: true})
	if err != nil || b.Issues != nil || b.Specs == nil || len(*b.Specs) != 0 {
		t.Errorf("blocked specs only: %+v, %v", b, err)
	}
	if _, err := e.r.Ready(e.ctx, store.ReadyOptions{Issues: true, Priority: new(5)}); err == nil {
		t.Error("ready --priority 5 succeeded")
	} else {
		wantCode(t, "ready --priority 5", err, fault.Invalid)
	}
}

// TestLinkRefusals: cycles of blocking links or of parent-child links, self
// links, unknown ids and types are refused, and refusing changes no file.
// Links of non-blocking types may go both ways.
func TestLinkRefusals(t *testing.T) {
	g := buildGraph(t, []string{"A", "B", "C", "D", "S spec", "T spec"},
		[]string{"A blocks B", "B depends-on C", "D parent-child A", "S blocks T"})
	e := g.e
	id := g.ids
	before := e.snapshot()
	tests := []struct {
		from, typ, to string
		code          fault.Code
		msg           string
	}{
		{"B", "blocks", "A", fault.Conflict, "would make a cycle"},
		{"C", "blocks", "A", fault.Conflict, "would make a cycle"},
		{"C", "depends-on", "A", fault.Conflict, "would make a cycle"},
		{"C", "depends-on", "B", fault.Conflict, "would make a cycle"},
		{"T", "depends-on", "S", fault.Conflict, "would make a cycle"},
		{"A", "parent-child", "D", fault.Conflict, "would make a cycle"},
		{"A", "blocks", "A", fault.Invalid, "itself"},
		{"S", "related", "S", fault.Invalid, "itself"},
		{"A", "parent-child", "A", fault.Invalid, "itself"},
		{"A", "blocks", "nope", fault.NotFound, "nope not found"},
		{"nope", "blocks", "A", fault.NotFound, "nope not found"},
		{"A", "bogus", "B", fault.Invalid, `invalid relationship type "bogus"`},
	}
	for _, tc := range tests {
		from, to := id[tc.from], id[tc.to]
		if from == "" {
			from = tc.from
		}
		if to == "" {
			to = tc.to
		}
		_, err := e.r.Link(e.ctx, from, to, tc.typ)
		what := fmt.Sprintf("link %s %s %s", tc.from, tc.typ, tc.to)
		wantCode(t, what, err, tc.code)
		if err != nil && !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %q, want it to say %q", what, err, tc.msg)
		}
	}
	sameSnapshot(t, "refused links", before, e.snapshot())

	// A longer parent-child cycle.
	e.link(id["A"], id["C"], "parent-child") // D → A → C
	_, err := e.r.Link(e.ctx, id["C"], id["D"], "parent-child")
	wantCode(t, "parent-child cycle of three", err, fault.Conflict)

	// Opposite links of other families are not cycles.
	e.link(id["B"], id["A"], "related")
	e.link(id["A"], id["B"], "related")
	e.link(id["B"], id["A"], "references")
	e.link(id["A"], id["B"], "references")
	e.link(id["B"], id["A"], "parent-child") // A waits for B; B is A's parent: allowed

	// Linking twice is one link.
	e.link(id["A"], id["B"], "blocks")
	d, err := e.r.ShowIssue(e.ctx, id["A"])
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range d.Relationships.Outgoing {
		if r.To == id["B"] && r.Type == tracker.RelBlocks {
			n++
		}
	}
	if n != 1 {
		t.Errorf("A has %d blocks links to B, want 1", n)
	}

	// Unlink an absent link: not found, nothing changed.
	before = e.snapshot()
	_, err = e.r.Unlink(e.ctx, id["A"], id["C"], "blocks")
	wantCode(t, "unlink of an absent link", err, fault.NotFound)
	_, err = e.r.Unlink(e.ctx, "nope", id["C"], "blocks")
	wantCode(t, "unlink from an unknown id", err, fault.NotFound)
	sameSnapshot(t, "refused unlinks", before, e.snapshot())

	// Unlink releases: A no longer waits for B, only (through its parent B) for C.
	if _, err := e.r.Unlink(e.ctx, id["A"], id["B"], "blocks"); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.r.ShowIssue(e.ctx, id["A"]); g.blockers(d.BlockedBy) != "C via B" {
		t.Errorf("after unlink, A blocked by %q, want %q", g.blockers(d.BlockedBy), "C via B")
	}
}

// TestLinksInFiles: a link lives with its source's record, in its file,
// and show lists it both ways.
func TestLinksInFiles(t *testing.T) {
	g := buildGraph(t, []string{"A", "S spec"}, []string{"A implements S", "S references A"})
	e := g.e
	issues := trackertest.ReadRecords[tracker.IssueRecord](t, e.dir)
	specs := trackertest.ReadRecords[tracker.SpecRecord](t, e.dir)
	if len(issues) != 1 || len(issues[0].Relationships) != 1 || issues[0].Relationships[0].To != g.ids["S"] ||
		issues[0].Relationships[0].FromType != tracker.KindIssue || issues[0].Relationships[0].ToType != tracker.KindSpec ||
		issues[0].Relationships[0].CreatedBy != "tester" {
		t.Errorf("issue files: %+v", issues)
	}
	if len(specs) != 1 || len(specs[0].Relationships) != 1 || specs[0].Relationships[0].To != g.ids["A"] {
		t.Errorf("spec files: %+v", specs)
	}
	d, err := e.r.ShowSpec(e.ctx, g.ids["S"])
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Relationships.Incoming) != 1 || d.Relationships.Incoming[0].From != g.ids["A"] ||
		len(d.Relationships.Outgoing) != 1 || d.Relationships.Outgoing[0].To != g.ids["A"] {
		t.Errorf("show spec relationships: %+v", d.Relationships)
	}
}
