package cli_test

import (
	"net"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/valkeytest"
)

// TestValkeyDownMidRun: a running ruleset server whose Valkey goes away
// answers every call with the specification's connection error (within
// callText's deadline: no call waits on retries forever), and works again
// by itself when Valkey is back on the same port.
func TestValkeyDownMidRun(t *testing.T) {
	srv, err := valkeytest.Start()
	if err != nil {
		if strings.Contains(err.Error(), "installed") {
			valkeytest.Shared(t) // skips or fails as the shared server would
		}
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	host, port, _ := net.SplitHostPort(srv.Addr)
	env := childEnv(t, "VALKEY_HOST="+host, "VALKEY_PORT="+port)

	sessions := map[string][]string{
		"mcp-ruleset-server":    {rulesetServerBin},
		"sudocode mcp rulesets": {sudocodeBin, "mcp", "rulesets"},
	}
	for name, run := range sessions {
		s, _ := connectStdio(t, env, run[0], run[1:]...)
		wantText(t, s, "upsert_ruleset", pyArgs, "Successfully upserted ruleset 'python_style_guide'")
		if got, isErr := callText(t, s, "get_ruleset", map[string]any{"name": pyName}); isErr {
			t.Fatalf("%s: get_ruleset with Valkey up: %q", name, got)
		}

		srv.Kill()
		for _, call := range []struct {
			tool   string
			args   map[string]any
			prefix string
		}{
			{"get_ruleset", map[string]any{"name": pyName}, "failed to retrieve ruleset: "},
			{"list_rulesets", map[string]any{}, ""},
			{"upsert_ruleset", pyArgs, ""},
		} {
			got, isErr := callText(t, s, call.tool, call.args) // answers within callText's deadline
			if !isErr {
				t.Errorf("%s: %s with Valkey down succeeded: %q", name, call.tool, got)
			}
			if !strings.HasPrefix(got, call.prefix) || !strings.Contains(got, "failed to connect to Valkey: ") ||
				strings.HasSuffix(got, "failed to connect to Valkey: ") {
				t.Errorf("%s: %s with Valkey down: %q, want %q then the specification's \"failed to connect to Valkey: {error_details}\"",
					name, call.tool, got, call.prefix)
			}
		}

		if err := srv.Restart(); err != nil {
			t.Fatal(err)
		}
		// The restarted server is empty: the first call after it must
		// already reach it.
		got, isErr := callText(t, s, "get_ruleset", map[string]any{"name": pyName})
		if want := "failed to retrieve ruleset: ruleset 'python_style_guide' not found"; !isErr || !strings.HasPrefix(got, want) {
			t.Errorf("%s: get_ruleset after Valkey restarted: %q (isError %v), want %q", name, got, isErr, want)
		}
		wantText(t, s, "upsert_ruleset", pyArgs, "Successfully upserted ruleset 'python_style_guide'")
		if got, isErr := callText(t, s, "get_ruleset", map[string]any{"name": pyName}); isErr || !strings.Contains(got, pyMarkdown) {
			t.Errorf("%s: get_ruleset after Valkey restarted and the ruleset was stored again: %q (isError %v)", name, got, isErr)
		}
		if _, err := srv.Do("FLUSHALL"); err != nil {
			t.Fatal(err)
		}
	}
}
