package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
	"github.com/sudocode/sudocode/internal/sqlitex"
)

// library runs "sudocode rulesets ..." on one embedded store.
type library struct {
	t     *testing.T
	env   []string
	store string
}

func newLibrary(t *testing.T) *library {
	return &library{t: t, env: childEnv(t), store: t.TempDir()}
}

// backdate sets the ruleset's created_at and last_modified to when, in
// the store's own file.
func (l *library) backdate(name, when string) {
	l.t.Helper()
	ctx := l.t.Context()
	db, err := sqlitex.Open(ctx, filepath.Join(l.store, sqlitestore.FileName), 1, "")
	if err != nil {
		l.t.Fatal(err)
	}
	defer db.Close()
	res, err := db.ExecContext(ctx, `UPDATE rulesets SET created_at = ?, last_modified = ? WHERE name = ?`, when, when, name)
	if err != nil {
		l.t.Fatalf("backdating ruleset %s: %v", name, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		l.t.Fatalf("backdating ruleset %s: %d rows, want 1", name, n)
	}
}

func (l *library) run(stdin string, args ...string) result {
	l.t.Helper()
	return sudocode(l.t, l.env, stdin, append(append([]string{"rulesets"}, args...), "--store", l.store)...)
}

// ok runs a command that must succeed and print want (times masked).
func (l *library) ok(want string, args ...string) string {
	l.t.Helper()
	r := l.run("", args...)
	if r.code != 0 {
		l.t.Fatalf("sudocode rulesets %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
	}
	if r.stderr != "" {
		l.t.Errorf("sudocode rulesets %s wrote to stderr: %q", strings.Join(args, " "), r.stderr)
	}
	if want != "" && maskTimes(r.stdout) != want {
		l.t.Errorf("sudocode rulesets %s:\n got %q\nwant %q", strings.Join(args, " "), r.stdout, want)
	}
	return r.stdout
}

// fail runs a command that must exit with code and print wantErr (the
// error line, without the hint) on stderr.
func (l *library) fail(code int, wantErr string, args ...string) {
	l.t.Helper()
	r := l.run("", args...)
	if r.code != code {
		l.t.Errorf("sudocode rulesets %s: exit %d, want %d (stderr %q)", strings.Join(args, " "), r.code, code, r.stderr)
	}
	if first, _, _ := strings.Cut(r.stderr, "\n"); first != "error: "+wantErr {
		l.t.Errorf("sudocode rulesets %s: stderr %q, want the first line %q", strings.Join(args, " "), r.stderr, "error: "+wantErr)
	}
	if r.stdout != "" {
		l.t.Errorf("sudocode rulesets %s failed but wrote to stdout: %q", strings.Join(args, " "), r.stdout)
	}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rules.md")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// jsonKeys returns the sorted keys of a decoded JSON object.
func jsonKeys(t *testing.T, v map[string]any) []string {
	t.Helper()
	var keys []string
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestRulesetsCommands(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)

	l.ok("No rulesets found\n", "list")
	l.ok("[]\n", "list", "--json")
	l.ok("No rulesets found matching pattern 'nonexistent*'\n", "search", "nonexistent*")

	// put creates, from a file.
	l.ok("Successfully upserted ruleset 'python_style_guide'\n",
		"put", pyName, "-d", pyDescription, "-t", "python,style,pep8", "-f", writeFile(t, pyMarkdown))
	doc := "---\nname: python_style_guide\ndescription: " + pyDescription +
		"\ntags: [python, style, pep8]\ncreated_at: TIME\nlast_modified: TIME\n---\n\n" + pyMarkdown + "\n"
	l.ok(doc, "get", pyName)

	// get --json: the fields are pinned.
	var got map[string]any
	if err := json.Unmarshal([]byte(l.ok("", "get", pyName, "--json")), &got); err != nil {
		t.Fatalf("get --json: %v", err)
	}
	if keys := jsonKeys(t, got); !slices.Equal(keys, []string{"created_at", "description", "last_modified", "markdown", "name", "tags"}) {
		t.Errorf("get --json keys = %v, want name, description, tags, markdown, created_at, last_modified", keys)
	}
	if got["name"] != pyName || got["description"] != pyDescription || got["markdown"] != pyMarkdown {
		t.Errorf("get --json = %v", got)
	}
	if tags, _ := json.Marshal(got["tags"]); string(tags) != `["python","style","pep8"]` {
		t.Errorf("get --json tags = %s", tags)
	}
	for _, k := range []string{"created_at", "last_modified"} {
		if s, _ := got[k].(string); !rfc3339UTC.MatchString(s) {
			t.Errorf("get --json %s = %v, want RFC3339 UTC", k, got[k])
		}
	}
	// The ruleset was made long ago: an update's last_modified differs
	// from it whenever the update runs.
	const created = "2001-02-03T04:05:06Z"
	l.backdate(pyName, created)

	// put updates only what it is given; the markdown may come on stdin.
	if r := l.run("# New rules\n", "put", pyName, "-f", "-", "--json"); r.code != 0 || r.stdout != "{\n  \"created\": false,\n  \"name\": \"python_style_guide\"\n}\n" {
		t.Errorf("put an update with --json: %+v", r)
	}
	var upd map[string]any
	json.Unmarshal([]byte(l.ok("", "get", pyName, "--json")), &upd)
	if upd["markdown"] != "# New rules\n" || upd["description"] != pyDescription || upd["created_at"] != created {
		t.Errorf("after updating the markdown: %v", upd)
	}
	if m, _ := upd["last_modified"].(string); m <= created || !rfc3339UTC.MatchString(m) {
		t.Errorf("last_modified after an update = %v, want a time in RFC3339 UTC after created_at, %s", upd["last_modified"], created)
	}
	l.ok("Successfully upserted ruleset 'python_style_guide'\n", "put", pyName, "--tags=")
	json.Unmarshal([]byte(l.ok("", "get", pyName, "--json")), &upd)
	if tags, _ := json.Marshal(upd["tags"]); string(tags) != `[]` {
		t.Errorf("tags after --tags= are %s, want []", tags)
	}
	l.ok("Successfully upserted ruleset 'python_style_guide'\n", "put", pyName, "-t", "python,style,pep8")

	// create makes a new one, and refuses a taken name.
	l.ok("Successfully created ruleset 'go_conventions'\n", "create", "go_conventions", "-d", "Go coding conventions and best practices", "-t", "go,conventions", "-f", writeFile(t, "# Go\n"))
	l.fail(4, "ruleset 'go_conventions' already exists. Please choose a different name. Existing rulesets: [go_conventions, python_style_guide]",
		"create", "go_conventions", "-d", "again", "-f", writeFile(t, "# Go\n"))
	if r := l.run("", "create", "go_conventions", "-d", "again", "-f", writeFile(t, "x")); !strings.Contains(r.stderr, "already exists. Please choose a different name. Existing rulesets: [") {
		t.Errorf("create on an existing name: stderr %q", r.stderr)
	}
	if r := l.run("x", "create", "api_design", "-d", "API design", "-f", "-", "--json"); r.code != 0 || r.stdout != "{\n  \"created\": true,\n  \"name\": \"api_design\"\n}\n" {
		t.Errorf("create --json: %+v", r)
	}

	// list and search: the server's texts, oldest first (then by name).
	var items []map[string]any
	if err := json.Unmarshal([]byte(l.ok("", "list", "--json")), &items); err != nil || len(items) != 3 {
		t.Fatalf("list --json: %v %v", items, err)
	}
	for i, it := range items {
		if keys := jsonKeys(t, it); !slices.Equal(keys, []string{"created_at", "description", "last_modified", "name", "tags"}) {
			t.Errorf("list --json item keys = %v, want name, description, tags, created_at, last_modified", keys)
		}
		if i > 0 {
			prev := items[i-1]
			if c := strings.Compare(prev["created_at"].(string), it["created_at"].(string)); c > 0 || c == 0 && prev["name"].(string) > it["name"].(string) {
				t.Errorf("list --json is not oldest first, then by name: %v", items)
			}
		}
	}
	if items[0]["name"] != pyName {
		t.Errorf("list --json does not start with the oldest ruleset: %v", items)
	}
	entry := map[string]string{
		pyName:           "- **python_style_guide**: " + pyDescription + "\n  Tags: [python style pep8]\n  Created: TIME, Modified: TIME\n\n",
		"go_conventions": "- **go_conventions**: Go coding conventions and best practices\n  Tags: [go conventions]\n  Created: TIME, Modified: TIME\n\n",
		"api_design":     "- **api_design**: API design\n  Tags: []\n  Created: TIME, Modified: TIME\n\n",
	}
	list := "Found 3 ruleset(s):\n\n"
	for _, it := range items {
		list += entry[it["name"].(string)]
	}
	l.ok(list+"\n", "list")
	l.ok("Found 1 ruleset(s) matching '*python*':\n\n- **python_style_guide**: "+pyDescription+
		"\n  Tags: [python style pep8]\n  Created: TIME, Modified: TIME\n\n\n", "search", "*python*")
	l.ok("Found 1 ruleset(s) matching 'go_?onventions':\n\n- **go_conventions**: Go coding conventions and best practices"+
		"\n  Tags: [go conventions]\n  Created: TIME, Modified: TIME\n\n\n", "search", "go_?onventions")
	var found []map[string]any
	json.Unmarshal([]byte(l.ok("", "search", "*_*", "--json")), &found)
	if len(found) != 3 {
		t.Errorf("search '*_*' --json found %d, want 3", len(found))
	}
	l.ok("[]\n", "search", "nothing*", "--json")

	// Errors and their exit codes.
	l.fail(3, "ruleset 'nonexistent' not found", "get", "nonexistent")
	l.fail(3, "ruleset 'nonexistent' not found. Existing rulesets: [api_design, go_conventions, python_style_guide]", "delete", "nonexistent")
	for _, bad := range []string{"Python-Style", "api__rules", "_private", "style-guide", "trailing_"} {
		l.fail(2, "invalid ruleset name '"+bad+"': must use snake_case (lowercase letters, numbers, and underscores only)", "get", bad)
	}
	l.fail(2, "invalid ruleset name 'Python-Style': must use snake_case (lowercase letters, numbers, and underscores only)",
		"put", "Python-Style", "-d", "x", "-f", writeFile(t, "x"))
	l.fail(2, "description is required for new rulesets", "put", "new_one", "-f", writeFile(t, "x"))
	l.fail(2, "markdown is required for new rulesets", "put", "new_one", "-d", "x")
	l.fail(2, "markdown is required for new rulesets", "create", "new_one", "-d", "x")

	// delete, then the name is gone.
	l.ok("Successfully deleted ruleset 'go_conventions'\n", "delete", "go_conventions")
	if r := l.run("", "delete", "api_design", "--json"); r.code != 0 || r.stdout != "{\n  \"deleted\": true,\n  \"name\": \"api_design\"\n}\n" {
		t.Errorf("delete --json: %+v", r)
	}
	l.fail(3, "ruleset 'go_conventions' not found", "get", "go_conventions")
	l.fail(3, "ruleset 'go_conventions' not found. Existing rulesets: [python_style_guide]", "delete", "go_conventions")
}

// TestRulesetsCommandsMatchTheServer checks that the CLI prints the MCP
// server's texts: each text output is the tool's text and a newline.
func TestRulesetsCommandsMatchTheServer(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	l.ok("", "put", pyName, "-d", pyDescription, "-t", "python,style,pep8", "-f", writeFile(t, pyMarkdown))
	l.ok("", "put", "go_conventions", "-d", "Go conventions", "-f", writeFile(t, "# Go"))

	s, _ := connectStdio(t, l.env, sudocodeBin, "mcp", "rulesets", "--store", l.store)
	for _, tc := range []struct {
		args []string
		tool string
		in   map[string]any
	}{
		{[]string{"get", pyName}, "get_ruleset", map[string]any{"name": pyName}},
		{[]string{"list"}, "list_rulesets", map[string]any{}},
		{[]string{"search", "*python*"}, "search_rulesets", map[string]any{"pattern": "*python*"}},
		{[]string{"search", "none*"}, "search_rulesets", map[string]any{"pattern": "none*"}},
	} {
		text, isErr := callText(t, s, tc.tool, tc.in)
		if isErr {
			t.Errorf("%s: %s", tc.tool, text)
		}
		if cli := l.ok("", tc.args...); cli != text+"\n" {
			t.Errorf("sudocode rulesets %s:\n got %q\nwant the server's %q and a newline", strings.Join(tc.args, " "), cli, text)
		}
	}
	wantText(t, s, "upsert_ruleset", map[string]any{"name": "go_conventions", "description": "Go conventions, updated"},
		"Successfully upserted ruleset 'go_conventions'")
	l.ok("Successfully upserted ruleset 'go_conventions'\n", "put", "go_conventions", "-d", "Go conventions, updated again")
	wantText(t, s, "delete_ruleset", map[string]any{"name": "go_conventions"}, "Successfully deleted ruleset 'go_conventions'")
	got, _ := callText(t, s, "delete_ruleset", map[string]any{"name": "go_conventions"})
	r := l.run("", "delete", "go_conventions")
	if want := "failed to delete ruleset: " + strings.TrimPrefix(strings.SplitN(r.stderr, "\n", 2)[0], "error: "); got != want {
		t.Errorf("delete of a missing ruleset: the server says %q, the CLI %q", got, r.stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	env := childEnv(t)
	store := t.TempDir()
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"rulesets", "get", "--store", store}, "error: accepts 1 arg(s), received 0"},
		{[]string{"rulesets", "get", "a", "b", "--store", store}, "error: accepts 1 arg(s), received 2"},
		{[]string{"rulesets", "list", "--bogus", "--store", store}, "error: unknown flag: --bogus"},
		{[]string{"rulesets", "lsit", "--store", store}, `error: unknown command "lsit" for "sudocode rulesets"`},
		{[]string{"mcp", "rulesetz"}, `error: unknown command "rulesetz" for "sudocode mcp"`},
		{[]string{"bogus"}, `error: unknown command "bogus" for "sudocode"`},
		{[]string{"rulesets", "put", "a", "-d", "x", "-f", filepath.Join(store, "missing.md"), "--store", store}, "error: open "},
	} {
		r := sudocode(t, env, "", tc.args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, tc.wantErr) {
			t.Errorf("sudocode %s: exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), r.code, r.stderr, tc.wantErr)
		}
	}
	if r := runCmd(t, env, "", rulesetServerBin, "extra"); r.code != 2 {
		t.Errorf("mcp-ruleset-server extra: exit %d, want 2 (stderr %q)", r.code, r.stderr)
	}
	// Help is not an error.
	for _, args := range [][]string{{"--help"}, {"rulesets"}, {"mcp", "--help"}, {"rulesets", "put", "--help"}} {
		if r := sudocode(t, env, "", args...); r.code != 0 || !strings.Contains(r.stdout, "Usage:") {
			t.Errorf("sudocode %s: exit %d, stdout %q", strings.Join(args, " "), r.code, r.stdout)
		}
	}
}

// TestDefaultStoreLocation checks where the embedded store lives
// when neither --store nor SUDOCODE_RULESETS_DIR is given.
func TestDefaultStoreLocation(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	env := append(childEnv(t), "XDG_DATA_HOME="+data) // the later one wins
	r := sudocode(t, env, "x", "rulesets", "put", "a_rule", "-d", "d", "-f", "-")
	if r.code != 0 {
		t.Fatalf("put without --store: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(data, "sudocode", "rulesets", "rulesets.db")); err != nil {
		t.Errorf("the default store is not under XDG_DATA_HOME/sudocode/rulesets: %v", err)
	}
	// SUDOCODE_RULESETS_DIR moves it; --store wins over both.
	dir := t.TempDir()
	env = append(env, "SUDOCODE_RULESETS_DIR="+dir)
	if r := sudocode(t, env, "", "rulesets", "list"); r.code != 0 || r.stdout != "No rulesets found\n" {
		t.Errorf("list with SUDOCODE_RULESETS_DIR: %+v", r)
	}
	if r := sudocode(t, env, "", "rulesets", "get", "a_rule", "--store", filepath.Join(data, "sudocode", "rulesets")); r.code != 0 {
		t.Errorf("get with --store: %+v", r)
	}
}

// TestRulesetsHistory: each change is recorded with its author (the
// SUDOCODE_ACTOR of the command that made it), and outlives a delete.
func TestRulesetsHistory(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	env := l.env
	l.env = append(env, "SUDOCODE_ACTOR=alice")
	l.ok("", "put", "team_rules", "-d", "Team rules", "-f", writeFile(t, "# Rules\n"))
	l.env = append(env, "SUDOCODE_ACTOR=bob")
	l.ok("", "put", "team_rules", "-t", "go,style")
	l.ok("", "put", "team_rules", "-d", "Team rules, v2", "-f", writeFile(t, "# Rules v2\n"))
	l.env = append(env, "SUDOCODE_ACTOR=carol")
	l.ok("", "delete", "team_rules")

	l.ok("4 change(s) of ruleset 'team_rules', newest first:\n"+
		"v4  TIME  carol  deleted\n"+
		"v3  TIME  bob  updated: description, markdown\n"+
		"v2  TIME  bob  updated: tags\n"+
		"v1  TIME  alice  created\n", "history", "team_rules")
	l.ok("1 change(s) of ruleset 'team_rules', newest first:\nv4  TIME  carol  deleted\n", "history", "team_rules", "-n", "1")

	var doc struct {
		Name    string `json:"name"`
		Changes []map[string]any
	}
	if err := json.Unmarshal([]byte(l.ok("", "history", "team_rules", "--json", "-n", "2")), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Name != "team_rules" || len(doc.Changes) != 2 {
		t.Fatalf("history --json: %+v", doc)
	}
	if keys := jsonKeys(t, doc.Changes[0]); !slices.Equal(keys, []string{"action", "by", "fields", "time", "version"}) {
		t.Errorf("history --json change keys = %v", keys)
	}
	if s, _ := doc.Changes[0]["time"].(string); !rfc3339UTC.MatchString(s) {
		t.Errorf("history --json time = %v, want RFC3339 UTC", doc.Changes[0]["time"])
	}
	if f, _ := json.Marshal(doc.Changes[1]["fields"]); doc.Changes[1]["by"] != "bob" || string(f) != `["description","markdown"]` {
		t.Errorf("history --json second change = %v", doc.Changes[1])
	}

	l.fail(3, "ruleset 'never_was' not found. Existing rulesets: []", "history", "never_was")
	l.fail(2, "invalid ruleset name 'Bad-Name': must use snake_case (lowercase letters, numbers, and underscores only)", "history", "Bad-Name")
	l.fail(2, "--limit must be between 1 and 100, got 0", "history", "team_rules", "-n", "0")
}
