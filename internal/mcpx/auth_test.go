package mcpx

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestTokenFileNamesCallers(t *testing.T) {
	path := writeTokenFile(t, "", "# the team\n\nalice "+aliceToken+"\n  bob   "+bobToken+"  \n# bob's second token, while he rotates\nbob "+carolToken+"\n")
	a, err := NewAuth("single-token-value", path, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	for token, want := range map[string]string{
		aliceToken: "alice", bobToken: "bob", carolToken: "bob", "single-token-value": SingleTokenCaller,
	} {
		if got, ok := a.Check(token); !ok || got != want {
			t.Errorf("Check(%q) = %q, %v; want %q", token, got, ok, want)
		}
	}
	for _, token := range []string{"", "alice", aliceToken[:len(aliceToken)-1], aliceToken + "x", "# the team"} {
		if got, ok := a.Check(token); ok {
			t.Errorf("Check(%q) accepted as %q", token, got)
		}
	}
	if got := strings.Join(a.Callers(), ","); got != "alice,bob" {
		t.Errorf("Callers() = %s, want alice,bob", got)
	}
}

func TestTokenFileProblemsAtStart(t *testing.T) {
	if _, err := NewAuth("", "/nonexistent/tokens", nil); err == nil {
		t.Error("a missing token file was accepted")
	}
	for name, content := range map[string]string{
		"one field":       "alice\n",
		"three fields":    "alice " + aliceToken + " extra\n",
		"bad name":        "al/ice " + aliceToken + "\n",
		"duplicate token": "alice " + aliceToken + "\nbob " + aliceToken + "\n",
	} {
		_, err := NewAuth("", writeTokenFile(t, "", content), nil)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if strings.Contains(err.Error(), aliceToken) {
			t.Errorf("%s: the error quotes the token: %v", name, err)
		}
	}
	if a, _ := NewAuth("", "", nil); a.Enabled() {
		t.Error("no token and no file: auth enabled")
	}
}

// A token file is read again when it changes: a new client gets in, a
// removed one is refused, and a file that is gone accepts none of its
// tokens (the single token still works).
func TestTokenFileReloadsOnChange(t *testing.T) {
	path := writeTokenFile(t, "", "alice "+aliceToken+"\nbob "+bobToken+"\n")
	a, err := NewAuth("single-token-value", path, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	// Every check looks at the file: what the test writes is what the
	// next check sees, with no wait for a reload interval to pass.
	a.interval = 0
	accepted := a.Check
	writeTokenFile(t, path, "alice "+aliceToken+"\ncarol "+carolToken+"\n")
	if name, ok := accepted(carolToken); !ok || name != "carol" {
		t.Errorf("carol after she was added: %q, %v", name, ok)
	}
	if name, ok := a.Check(bobToken); ok {
		t.Errorf("bob after he was removed: accepted as %q", name)
	}
	// A line that cannot be read is skipped; the others apply.
	writeTokenFile(t, path, "alice "+aliceToken+"\nthis line is wrong\n")
	if _, ok := accepted(aliceToken); !ok {
		t.Error("alice refused after a bad line was added")
	}
	if _, ok := a.Check(carolToken); ok {
		t.Error("carol accepted after she was removed")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, ok := accepted(aliceToken); ok {
		t.Error("alice accepted after the token file was deleted")
	}
	if name, ok := a.Check("single-token-value"); !ok || name != SingleTokenCaller {
		t.Errorf("the single token after the file was deleted: %q, %v", name, ok)
	}
	writeTokenFile(t, path, "alice "+aliceToken+"\n")
	if _, ok := accepted(aliceToken); !ok {
		t.Error("alice refused after the token file came back")
	}
}

// Over HTTP through the SDK's client: no token or a wrong one is 401, and
// each token's client name reaches the tool handlers (CallerFrom), per
// call, with two clients on one server at once.
func TestCallerReachesToolHandlersOverHTTP(t *testing.T) {
	path := writeTokenFile(t, "", "alice "+aliceToken+"\nbob "+bobToken+"\n")
	a, err := NewAuth("", path, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	base := startTeam(t, Transport{Auth: a, Caller: "local-user"})
	endpoint := base + Path

	for _, token := range []string{"", "wrong-token"} {
		if _, err := connectAs(t, endpoint, token); err == nil {
			t.Errorf("token %q: the client connected", token)
		}
		resp := post(t, endpoint, strings.NewReader(initializeBody), map[string]string{"Authorization": "Bearer " + token})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", token, resp.StatusCode)
		}
	}

	alice := mustConnectAs(t, endpoint, aliceToken)
	bob := mustConnectAs(t, endpoint, bobToken)
	for range 3 {
		for cs, want := range map[*mcp.ClientSession]string{alice: "alice", bob: "bob"} {
			got, _, err := callText(t, cs, "whoami", nil)
			if err != nil || got != want {
				t.Errorf("whoami as %s = %q, %v", want, got, err)
			}
		}
	}

	// A session belongs to the client that opened it: bob cannot use
	// alice's session id.
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
	resp := post(t, endpoint, strings.NewReader(body), map[string]string{
		"Authorization": "Bearer " + bobToken, "Mcp-Session-Id": alice.ID(), "Mcp-Protocol-Version": "2025-06-18",
	})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("bob on alice's session: status %d, want 403", resp.StatusCode)
	}
	resp = post(t, endpoint, strings.NewReader(body), map[string]string{
		"Authorization": "Bearer " + aliceToken, "Mcp-Session-Id": alice.ID(), "Mcp-Protocol-Version": "2025-06-18",
	})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("alice on her own session: status %d, want 200", resp.StatusCode)
	}
}

// The single token's caller is "token"; without tokens (loopback) and on
// stdio the caller is the transport's Caller, the local user.
func TestCallerOfSingleTokenAndStdio(t *testing.T) {
	base := startTeam(t, Transport{Token: "s3cret", Caller: "local-user"})
	if got, _, err := callText(t, mustConnectAs(t, base+Path, "s3cret"), "whoami", nil); err != nil || got != SingleTokenCaller {
		t.Errorf("whoami with the single token = %q, %v; want %q", got, err, SingleTokenCaller)
	}
	open := startTeam(t, Transport{Caller: "local-user"})
	if got, _, err := callText(t, mustConnectAs(t, open+Path, ""), "whoami", nil); err != nil || got != "local-user" {
		t.Errorf("whoami without tokens = %q, %v; want local-user", got, err)
	}

	// stdio: Serve installs the same middleware; in-memory transports
	// stand in for the pipe.
	s := teamServer()
	Install(s, Transport{Caller: "local-user"})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got, _, err := callText(t, cs, "whoami", nil); err != nil || got != "local-user" {
		t.Errorf("whoami on stdio = %q, %v; want local-user", got, err)
	}
}

func TestTransportCheckAddrCountsTheTokenFile(t *testing.T) {
	a, err := NewAuth("", writeTokenFile(t, "", "alice "+aliceToken+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := (Transport{}).CheckAddr("0.0.0.0:8080"); err == nil || !strings.Contains(err.Error(), "--token-file") {
		t.Errorf("no token: %v, want a refusal that names --token-file", err)
	}
	if err := (Transport{Auth: a}).CheckAddr("0.0.0.0:8080"); err != nil {
		t.Errorf("a token file: %v", err)
	}
}
