package cli_test

import (
	"context"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/sudocode/sudocode/internal/valkeytest"
)

// valkeyEnv is a child environment pointing at the shared test server, with
// a client to inspect what the binaries stored.
func valkeyEnv(t *testing.T) ([]string, valkey.Client) {
	t.Helper()
	srv := valkeytest.Shared(t)
	host, port, err := net.SplitHostPort(srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return childEnv(t, "VALKEY_HOST="+host, "VALKEY_PORT="+port), c
}

func hgetall(t *testing.T, c valkey.Client, key string) map[string]string {
	t.Helper()
	m, err := c.Do(context.Background(), c.B().Hgetall().Key(key).Build()).AsStrMap()
	if err != nil {
		t.Fatalf("HGETALL %s: %v", key, err)
	}
	return m
}

var rfc3339UTC = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)

// checkStamp checks a stored time is RFC3339 UTC and within [from, to].
func checkStamp(t *testing.T, field, v string, from, to time.Time) time.Time {
	t.Helper()
	if !rfc3339UTC.MatchString(v) {
		t.Errorf("%s = %q, want RFC3339 in UTC, e.g. 2025-10-29T10:30:00Z", field, v)
		return time.Time{}
	}
	ts, err := time.Parse(time.RFC3339, v)
	if err != nil {
		t.Errorf("%s = %q: %v", field, v, err)
	}
	if ts.Before(from.Truncate(time.Second)) || ts.After(to) {
		t.Errorf("%s = %v, want between %v and %v", field, ts, from, to)
	}
	return ts
}

func TestValkeyStoresTheSpecificationsHash(t *testing.T) {
	env, c := valkeyEnv(t)
	ctx := context.Background()
	s, _ := connectStdio(t, env, rulesetServerBin)

	before := time.Now()
	wantText(t, s, "upsert_ruleset", pyArgs, "Successfully upserted ruleset 'python_style_guide'")
	after := time.Now()

	typ, err := c.Do(ctx, c.B().Type().Key("ruleset:python_style_guide").Build()).ToString()
	if err != nil || typ != "hash" {
		t.Fatalf("TYPE ruleset:python_style_guide = %q (%v), want hash", typ, err)
	}
	h := hgetall(t, c, "ruleset:python_style_guide")
	var fields []string
	for k := range h {
		fields = append(fields, k)
	}
	if !sameSet(fields, []string{"description", "tags", "markdown", "created_at", "last_modified"}) {
		t.Errorf("hash fields = %v, want description, tags, markdown, created_at, last_modified", fields)
	}
	if h["description"] != pyDescription || h["markdown"] != pyMarkdown {
		t.Errorf("description/markdown = %q / %q", h["description"], h["markdown"])
	}
	if h["tags"] != `["python","style","pep8"]` {
		t.Errorf(`tags = %q, want ["python","style","pep8"]`, h["tags"])
	}
	created := checkStamp(t, "created_at", h["created_at"], before, after)
	checkStamp(t, "last_modified", h["last_modified"], before, after)
	if h["created_at"] != h["last_modified"] {
		t.Errorf("a new ruleset's created_at %q differs from its last_modified %q", h["created_at"], h["last_modified"])
	}

	// The resource shows the stored times.
	res, err := readResource(t, s, "ruleset://python_style_guide")
	if err != nil {
		t.Fatal(err)
	}
	if want := "created_at: " + created.Format("2006-01-02 15:04:05") + "\n"; !strings.Contains(res.Text, want) {
		t.Errorf("resource text has no %q: %q", want, res.Text)
	}

	// An update changes only the fields it names and bumps last_modified.
	wantText(t, s, "upsert_ruleset", map[string]any{"name": pyName, "description": "Updated"}, "Successfully upserted ruleset 'python_style_guide'")
	u := hgetall(t, c, "ruleset:python_style_guide")
	if u["description"] != "Updated" || u["tags"] != h["tags"] || u["markdown"] != h["markdown"] || u["created_at"] != h["created_at"] {
		t.Errorf("after an update of the description: %q, before %q", u, h)
	}
	checkStamp(t, "last_modified", u["last_modified"], created, time.Now())
	wantText(t, s, "upsert_ruleset", map[string]any{"name": pyName, "tags": []string{}}, "Successfully upserted ruleset 'python_style_guide'")
	if got := hgetall(t, c, "ruleset:python_style_guide")["tags"]; got != "[]" {
		t.Errorf("tags after setting none = %q, want []", got)
	}

	// A ruleset written by the CLI is stored the same way and seen by the
	// running server.
	r := sudocode(t, env, "# Go\n", "rulesets", "put", "go_conventions", "-d", "Go conventions", "-t", "go,conventions", "-f", "-")
	if r.code != 0 || r.stdout != "Successfully upserted ruleset 'go_conventions'\n" {
		t.Fatalf("sudocode rulesets put on Valkey: %+v", r)
	}
	g := hgetall(t, c, "ruleset:go_conventions")
	if g["tags"] != `["go","conventions"]` || g["markdown"] != "# Go\n" || g["description"] != "Go conventions" {
		t.Errorf("the CLI's hash: %q", g)
	}
	got, _ := callText(t, s, "list_rulesets", map[string]any{})
	if !strings.Contains(got, "Found 2 ruleset(s):") || !strings.Contains(got, "- **go_conventions**: Go conventions\n  Tags: [go conventions]\n") {
		t.Errorf("list_rulesets after the CLI's put: %q", got)
	}

	wantText(t, s, "delete_ruleset", map[string]any{"name": pyName}, "Successfully deleted ruleset 'python_style_guide'")
	if n, err := c.Do(ctx, c.B().Exists().Key("ruleset:python_style_guide").Build()).AsInt64(); err != nil || n != 0 {
		t.Errorf("EXISTS after delete = %d (%v), want 0", n, err)
	}
	got, isErr := callText(t, s, "delete_ruleset", map[string]any{"name": pyName})
	if want := "failed to delete ruleset: ruleset 'python_style_guide' not found. Existing rulesets: [go_conventions]"; !isErr || got != want {
		t.Errorf("delete_ruleset of a missing ruleset: %q (isError %v), want %q", got, isErr, want)
	}
}

func TestValkeyStoreWithEmbeddedStoreFlagIsAUsageError(t *testing.T) {
	env, _ := valkeyEnv(t)
	r := sudocode(t, env, "", "rulesets", "list", "--store", t.TempDir())
	if r.code != 2 || !strings.Contains(r.stderr, "--store") {
		t.Errorf("--store with VALKEY_* set: exit %d, stderr %q; want 2 and a message about --store", r.code, r.stderr)
	}
}

func TestValkeyUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close() // nothing listens there now
	env := childEnv(t, "VALKEY_HOST=127.0.0.1", "VALKEY_PORT="+port)

	for _, run := range [][]string{
		{rulesetServerBin},
		{sudocodeBin, "mcp", "rulesets"},
		{sudocodeBin, "mcp", "rulesets", "--http", "127.0.0.1:0"},
		{sudocodeBin, "rulesets", "list"},
	} {
		r := runCmd(t, env, "", run[0], run[1:]...) // gives up within runCmd's deadline
		name := strings.Join(append([]string{run[0][strings.LastIndexByte(run[0], '/')+1:]}, run[1:]...), " ")
		if r.code == 0 {
			t.Errorf("%s exited 0 with Valkey unreachable", name)
		}
		if r.code != 5 {
			t.Errorf("%s exited %d, want 5 (unavailable)", name, r.code)
		}
		if !strings.Contains(r.stderr, "failed to connect to Valkey: ") {
			t.Errorf("%s: stderr %q does not contain \"failed to connect to Valkey: \"", name, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("%s wrote to stdout: %q", name, r.stdout)
		}
	}
}
