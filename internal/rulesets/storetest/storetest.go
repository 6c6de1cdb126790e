// Package storetest is the behaviour every rulesets.Store must have, run
// against each adapter by its own tests.
package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// Run runs the contract; open returns a new, empty store.
func Run(t *testing.T, open func(t *testing.T) rulesets.Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, rulesets.Store)
	}{
		{"CreateThenGet", testCreateThenGet},
		{"UpdateChangesOnlyGivenFields", testUpdateChangesOnlyGivenFields},
		{"CreateNeedsDescriptionAndMarkdown", testCreateNeedsDescriptionAndMarkdown},
		{"CreateRefusesTakenName", testCreateRefusesTakenName},
		{"DeleteAndNotFound", testDeleteAndNotFound},
		{"SearchGlob", testSearchGlob},
		{"SearchEscapesOtherGlobCharacters", testSearchEscapes},
		{"SearchPageWalksInListOrder", testSearchPage},
		{"SearchPageKeepsItsPlaceUnderChanges", testSearchPageUnderChanges},
		{"UnicodeAndLargeMarkdown", testUnicodeAndLargeMarkdown},
		{"RacingUpsertsCreateOnce", testRacingUpserts},
		{"HistoryRecordsEveryChangeAndItsAuthor", testHistory},
		{"HistoryKeepsTheNewest", testHistoryCap},
		{"HistoryOfRacingWriters", testHistoryRacing},
		{"HistoryRecordsWhatChanged", testHistoryRecordsWhatChanged},
		{"ScopeIsStoredKeptAndCleared", testScope},
		{"ResolveOrdersWhatApplies", testResolve},
		{"VersionsReadDiffAndRestore", testVersions},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

var t0 = time.Date(2025, 10, 29, 10, 30, 0, 0, time.UTC)

func str(s string) *string { return &s }

func full(name, desc, md string, tags ...string) rulesets.Patch {
	return rulesets.Patch{Name: name, Description: str(desc), Markdown: str(md), Tags: tags, SetTags: tags != nil}
}

func mustUpsert(t *testing.T, s rulesets.Store, p rulesets.Patch, now time.Time) bool {
	t.Helper()
	created, err := s.Upsert(context.Background(), p, now)
	if err != nil {
		t.Fatalf("Upsert(%s): %v", p.Name, err)
	}
	return created
}

func mustGet(t *testing.T, s rulesets.Store, name string) rulesets.Ruleset {
	t.Helper()
	r, err := s.Get(context.Background(), name)
	if err != nil {
		t.Fatalf("Get(%s): %v", name, err)
	}
	return r
}

func testCreateThenGet(t *testing.T, s rulesets.Store) {
	if !mustUpsert(t, s, full("python_style_guide", "Python style", "# Python", "python", "style", "pep8"), t0) {
		t.Fatal("first upsert did not report a create")
	}
	got := mustGet(t, s, "python_style_guide")
	want := rulesets.Ruleset{Name: "python_style_guide", Description: "Python style", Markdown: "# Python",
		Tags: []string{"python", "style", "pep8"}, CreatedAt: t0, LastModified: t0}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// No tags given on a create: an empty list, never nil.
	mustUpsert(t, s, full("bare", "d", "m"), t0)
	if tags := mustGet(t, s, "bare").Tags; tags == nil || len(tags) != 0 {
		t.Fatalf("tags = %#v, want empty non-nil", tags)
	}
}

func testUpdateChangesOnlyGivenFields(t *testing.T, s rulesets.Store) {
	mustUpsert(t, s, full("go_conventions", "Go", "# Go", "go"), t0)
	t1 := t0.Add(time.Hour)
	if mustUpsert(t, s, rulesets.Patch{Name: "go_conventions", Description: str("Go, updated")}, t1) {
		t.Fatal("an update reported a create")
	}
	got := mustGet(t, s, "go_conventions")
	if got.Description != "Go, updated" || got.Markdown != "# Go" || !slices.Equal(got.Tags, []string{"go"}) {
		t.Fatalf("after description update: %+v", got)
	}
	if !got.CreatedAt.Equal(t0) || !got.LastModified.Equal(t1) {
		t.Fatalf("times: created %v modified %v", got.CreatedAt, got.LastModified)
	}
	mustUpsert(t, s, rulesets.Patch{Name: "go_conventions", Tags: []string{}, SetTags: true}, t1)
	if got := mustGet(t, s, "go_conventions"); len(got.Tags) != 0 || got.Description != "Go, updated" {
		t.Fatalf("clearing tags: %+v", got)
	}
	mustUpsert(t, s, rulesets.Patch{Name: "go_conventions", Markdown: str("# Go 2")}, t1)
	if got := mustGet(t, s, "go_conventions"); got.Markdown != "# Go 2" {
		t.Fatalf("markdown update: %+v", got)
	}
}

func testCreateNeedsDescriptionAndMarkdown(t *testing.T, s rulesets.Store) {
	ctx := context.Background()
	_, err := s.Upsert(ctx, rulesets.Patch{Name: "x", Markdown: str("m")}, t0)
	if err != rulesets.ErrDescriptionRequired {
		t.Fatalf("no description: %v", err)
	}
	_, err = s.Upsert(ctx, rulesets.Patch{Name: "x", Description: str("d")}, t0)
	if err != rulesets.ErrMarkdownRequired {
		t.Fatalf("no markdown: %v", err)
	}
	if _, err := s.Get(ctx, "x"); !fault.Is(err, fault.NotFound) {
		t.Fatalf("a refused create stored something: %v", err)
	}
}

func testCreateRefusesTakenName(t *testing.T, s rulesets.Store) {
	ctx := context.Background()
	r := rulesets.Ruleset{Name: "api_design", Description: "d", Markdown: "m", Tags: []string{}, CreatedAt: t0, LastModified: t0}
	if err := s.Create(ctx, r, "alice"); err != nil {
		t.Fatal(err)
	}
	r2 := r
	r2.Description = "other"
	if err := s.Create(ctx, r2, "bob"); !fault.Is(err, fault.Conflict) {
		t.Fatalf("second create: %v", err)
	}
	if got := mustGet(t, s, "api_design"); got.Description != "d" {
		t.Fatalf("a refused create changed the ruleset: %+v", got)
	}
}

func testDeleteAndNotFound(t *testing.T, s rulesets.Store) {
	ctx := context.Background()
	mustUpsert(t, s, full("a", "d", "m"), t0)
	mustUpsert(t, s, full("b", "d", "m"), t0)
	if err := s.Delete(ctx, "a", "alice", t0); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "a", "alice", t0); !fault.Is(err, fault.NotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := s.Get(ctx, "a"); !fault.Is(err, fault.NotFound) || err.Error() != "ruleset 'a' not found" {
		t.Fatalf("get deleted: %v", err)
	}
	names, err := s.Names(ctx)
	if err != nil || !slices.Equal(names, []string{"b"}) {
		t.Fatalf("names = %v, %v", names, err)
	}
}

func testSearchGlob(t *testing.T, s rulesets.Store) {
	ctx := context.Background()
	// Created out of name order: lists are oldest first.
	for i, n := range []string{"python_testing", "python_style_guide", "go_style_guide", "api_v2_rules", "test123"} {
		mustUpsert(t, s, full(n, "d "+n, "m"), t0.Add(time.Duration(i)*time.Minute))
	}
	cases := map[string][]string{
		"*":              {"python_testing", "python_style_guide", "go_style_guide", "api_v2_rules", "test123"},
		"*python*":       {"python_testing", "python_style_guide"},
		"python_*":       {"python_testing", "python_style_guide"},
		"*_guide":        {"python_style_guide", "go_style_guide"},
		"*_style_*":      {"python_style_guide", "go_style_guide"},
		"test12?":        {"test123"},
		"test1?":         {},
		"nonexist*":      {},
		"PYTHON*":        {}, // case-sensitive
		"go_style_guide": {"go_style_guide"},
	}
	for pattern, want := range cases {
		got, err := s.Search(ctx, pattern)
		if err != nil {
			t.Fatalf("Search(%q): %v", pattern, err)
		}
		names := []string{}
		for _, r := range got {
			names = append(names, r.Name)
			if r.Description != "d "+r.Name || r.Tags == nil || r.CreatedAt.IsZero() {
				t.Fatalf("Search(%q) summary %+v", pattern, r)
			}
		}
		if !slices.Equal(names, want) {
			t.Errorf("Search(%q) = %v, want %v", pattern, names, want)
		}
	}
}

func testSearchEscapes(t *testing.T, s rulesets.Store) {
	ctx := context.Background()
	mustUpsert(t, s, full("abc", "d", "m"), t0)
	mustUpsert(t, s, full("b", "d", "m"), t0)
	for _, pattern := range []string{"[ab]*", "[a-c]bc", `\abc`, "a[b]c", "^abc", "b]"} {
		got, err := s.Search(ctx, pattern)
		if err != nil {
			t.Fatalf("Search(%q): %v", pattern, err)
		}
		if len(got) != 0 {
			t.Errorf("Search(%q) matched %v: only * and ? may be special", pattern, got)
		}
	}
}

func testUnicodeAndLargeMarkdown(t *testing.T, s rulesets.Store) {
	md := "# Règles 日本語 🚀\n\n" + string(make([]byte, 0)) + fmt.Sprintf("%0*d", rulesets.MaxMarkdownLen-64, 7)
	mustUpsert(t, s, full("unicode_rules", "Ünïcödé — description", md, "日本", "ß"), t0)
	got := mustGet(t, s, "unicode_rules")
	if got.Markdown != md || got.Description != "Ünïcödé — description" || !slices.Equal(got.Tags, []string{"日本", "ß"}) {
		t.Fatalf("round trip lost data: desc %q tags %v markdown %d bytes", got.Description, got.Tags, len(got.Markdown))
	}
}

// testRacingUpserts: many writers create one name at once, each with its
// own complete content. Exactly one creates; the others update; the stored
// fields all come from one writer and created_at is the creator's.
func testRacingUpserts(t *testing.T, s rulesets.Store) {
	const writers = 16
	var wg sync.WaitGroup
	creates := make(chan int, writers)
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			now := t0.Add(time.Duration(i) * time.Second)
			created, err := s.Upsert(context.Background(), full("raced", fmt.Sprintf("d%d", i), fmt.Sprintf("m%d", i), fmt.Sprintf("t%d", i)), now)
			if err != nil {
				errs <- err
				return
			}
			if created {
				creates <- i
			}
		}()
	}
	wg.Wait()
	close(creates)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var creators []int
	for i := range creates {
		creators = append(creators, i)
	}
	if len(creators) != 1 {
		t.Fatalf("%d writers reported a create, want 1", len(creators))
	}
	got := mustGet(t, s, "raced")
	var i int
	if _, err := fmt.Sscanf(got.Description, "d%d", &i); err != nil {
		t.Fatal(err)
	}
	if got.Markdown != fmt.Sprintf("m%d", i) || !slices.Equal(got.Tags, []string{fmt.Sprintf("t%d", i)}) {
		t.Fatalf("fields mixed between writers: %+v", got)
	}
	if want := t0.Add(time.Duration(creators[0]) * time.Second); !got.CreatedAt.Equal(want) {
		t.Fatalf("created_at %v, want the creator's %v", got.CreatedAt, want)
	}
}

// walkPages pages through s's matches of pattern, limit at a time, calling
// between after each page but the last, and returns every name listed.
func walkPages(t *testing.T, s rulesets.Store, pattern string, limit int, between func()) (names []string, pages int) {
	t.Helper()
	var after *rulesets.PageKey
	for {
		p, err := s.SearchPage(context.Background(), pattern, after, limit)
		if err != nil {
			t.Fatalf("SearchPage(%q, %v, %d): %v", pattern, after, limit, err)
		}
		pages++
		if len(p.Items) > limit {
			t.Fatalf("SearchPage(%q, limit %d): %d items", pattern, limit, len(p.Items))
		}
		for _, r := range p.Items {
			names = append(names, r.Name)
			if r.Description == "" || r.Tags == nil || r.CreatedAt.IsZero() {
				t.Fatalf("SearchPage summary %+v", r)
			}
		}
		if !p.More {
			return names, pages
		}
		if len(p.Items) == 0 || pages > 100_000 {
			t.Fatalf("SearchPage(%q): more follow an empty page", pattern)
		}
		k := rulesets.KeyOf(p.Items[len(p.Items)-1])
		after = &k
		if between != nil {
			between()
		}
	}
}

func testSearchPage(t *testing.T, s rulesets.Store) {
	ctx := context.Background()
	// 60 rulesets, three to a second, created out of name order.
	for i := range 60 {
		name := fmt.Sprintf("r%02d_%s", 59-i, map[bool]string{true: "python", false: "go"}[i%4 == 0])
		mustUpsert(t, s, full(name, "d", "m"), t0.Add(time.Duration(i/3)*time.Second))
	}
	for _, pattern := range []string{"*", "*python*", "r1?_*", "none*"} {
		all, err := s.Search(ctx, pattern)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, r := range all {
			want = append(want, r.Name)
		}
		for _, limit := range []int{1, 2, 7, 60, 1000} {
			got, pages := walkPages(t, s, pattern, limit, nil)
			if !slices.Equal(got, want) {
				t.Errorf("SearchPage(%q) in pages of %d = %v, want Search's %v", pattern, limit, got, want)
			}
			if wantPages := max(1, (len(want)+limit-1)/limit); pages != wantPages {
				t.Errorf("SearchPage(%q) in pages of %d: %d pages, want %d", pattern, limit, pages, wantPages)
			}
		}
		p, err := s.SearchPage(ctx, pattern, nil, 5)
		if err != nil || p.Total != len(want) {
			t.Errorf("SearchPage(%q).Total = %d, %v; want %d", pattern, p.Total, err, len(want))
		}
	}
}

func testSearchPageUnderChanges(t *testing.T, s rulesets.Store) {
	ctx := context.Background()
	var want []string
	for i := range 100 {
		name := fmt.Sprintf("old_%03d", i)
		mustUpsert(t, s, full(name, "d", "m"), t0.Add(time.Duration(i/10)*time.Second))
		want = append(want, name)
	}
	step := 0
	deleted := map[string]bool{}
	got, _ := walkPages(t, s, "*", 7, func() {
		step++
		// New rulesets, older and newer than the position, and in its second.
		mustUpsert(t, s, full(fmt.Sprintf("new_before_%d", step), "d", "m"), t0.Add(-time.Hour))
		mustUpsert(t, s, full(fmt.Sprintf("new_same_%d", step), "d", "m"), t0.Add(time.Duration(step*7/10)*time.Second))
		mustUpsert(t, s, full(fmt.Sprintf("new_after_%d", step), "d", "m"), t0.Add(time.Hour))
		// An update of an old one keeps its place.
		if name := fmt.Sprintf("old_%03d", 99-step); !deleted[name] {
			mustUpsert(t, s, rulesets.Patch{Name: name, Description: str("changed")}, t0.Add(2*time.Hour))
		}
		// A deletion of one not listed yet.
		victim := fmt.Sprintf("old_%03d", 98-step)
		if step%5 == 0 && !deleted[victim] {
			if err := s.Delete(ctx, victim, "alice", t0); err == nil {
				deleted[victim] = true
			}
		}
	})
	seen := map[string]int{}
	for _, n := range got {
		seen[n]++
		if seen[n] > 1 {
			t.Errorf("%s listed twice", n)
		}
	}
	for _, n := range want {
		if seen[n] != 1 && !deleted[n] {
			t.Errorf("%s, there from start to end, listed %d times", n, seen[n])
		}
	}
	for n := range seen {
		if strings.HasPrefix(n, "new_before_") {
			t.Errorf("%s, created before the position reached, was listed", n)
		}
	}
	if seen["new_after_1"] != 1 {
		t.Errorf("a ruleset created after the position reached was not listed")
	}
}
