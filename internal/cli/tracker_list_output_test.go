package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/goldentest"
	"github.com/sudocode/sudocode/internal/tracker/store"
	"github.com/sudocode/sudocode/internal/tracker/trackergen"
)

// TestIssueListGolden pins every byte issue list prints, JSON and text, on
// a generated repository: whole lists, a page cut by --limit (hint and
// next_cursor), a page after a cursor, and the default open-only list.
// Refresh with: go test ./internal/cli -run TestIssueListGolden -update
func TestIssueListGolden(t *testing.T) {
	root := t.TempDir()
	if err := trackergen.Generate(root, trackergen.Size{Issues: 60, Specs: 5, Relationships: 100}); err != nil {
		t.Fatal(err)
	}
	p := &proj{t: t, root: root, dir: filepath.Join(root, ".sudocode"), env: childEnv(t, "SUDOCODE_ACTOR=alice", "USER=tester")}
	page := p.js("issue", "list", "--limit", "7")
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"list_all.json", []string{"issue", "list", "--all", "--json", "--limit", "1000"}},
		{"list_all.txt", []string{"issue", "list", "--all", "--limit", "1000"}},
		{"list_page.json", []string{"issue", "list", "--json", "--limit", "7"}},
		{"list_page.txt", []string{"issue", "list", "--limit", "7"}},
		{"list_next_page.json", []string{"issue", "list", "--json", "--limit", "7", "--cursor", page.str("next_cursor")}},
		{"list_open.txt", []string{"issue", "list"}},
		{"list_closed_bugs.json", []string{"issue", "list", "--json", "--status", "closed", "--type", "bug", "--limit", "0"}},
	} {
		goldentest.Bytes(t, filepath.Join("testdata", "issue_list", c.golden), []byte(p.ok(c.args...)))
	}
}

// TestIssueListJSONIsEncodingJSON checks issue list --json prints the very
// bytes encoding/json's indented encoder makes of the store's list, with
// strings that need escaping, characters beyond ASCII and descriptions cut
// in the middle of multi-byte characters.
func TestIssueListJSONIsEncodingJSON(t *testing.T) {
	p := newProj(t)
	for i, s := range []string{
		`quotes " and \ backslash`,
		"controls \x01\x02\x1f \t tab \n newline \r return \b\f",
		"html <a href=\"x\">&amp;</a> stays as is",
		"separators \u2028 and \u2029, DEL \x7f",
		"ünïcödé ✓ 日本語 🚀 " + strings.Repeat("é", 130),
		strings.Repeat("🚀", 119) + "x",
		strings.Repeat("🚀", 121),
		"",
	} {
		title := "title " + strings.NewReplacer("\n", " ", "\r", " ").Replace(s) // a title is one line
		args := []string{"issue", "create", title, "--description", s, "--priority", itoa(i % 5)}
		if i%3 == 0 {
			args = append(args, "--type", "bug")
		}
		p.ok(args...)
	}
	id := p.js("issue", "list", "--limit", "1").str("issues", "0", "id")
	p.ok("issue", "close", id)

	for _, f := range []store.IssueFilter{
		{Limit: 1000},
		{Limit: 1000, HideClosed: true},
		{Limit: 3, HideClosed: true},
		{Limit: 1000, Type: "bug"},
	} {
		args := []string{"issue", "list", "--json", "--limit", itoa(f.Limit)}
		if !f.HideClosed {
			args = append(args, "--all")
		}
		if f.Type != "" {
			args = append(args, "--type", f.Type)
		}
		got := p.ok(args...)
		if want := encodedList(t, p.root, f); got != want {
			t.Errorf("sudocode %s:\n%s\nwant the bytes of encoding/json:\n%s", strings.Join(args, " "), got, want)
		}
	}
}

// encodedList is the store's list under f as encoding/json's indented
// encoder writes it.
func encodedList(t *testing.T, root string, f store.IssueFilter) string {
	t.Helper()
	ctx := context.Background()
	r, err := store.Open(ctx, filepath.Join(root, ".sudocode"), "alice")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	list, err := r.ListIssues(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(list); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
