package mcpx

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// Without sessions (a server run stateless, and any 2026-07-28 client)
// the team controls hold per caller as they do per session: every request
// is authenticated and names its caller to the handlers, a client's rate
// limit is its own, and every call is audited with its client. Clients
// of every revision are served, none of them given a session.
func TestControlsHoldWithoutSessions(t *testing.T) {
	a, err := NewAuth("", writeTokenFile(t, "", "alice "+aliceToken+"\nbob "+bobToken+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "audit.log")
	audit, err := OpenAuditLog(logPath, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer audit.Close()
	perClient, _ := ParseRate("3/m")
	base := startTeam(t, Transport{Stateless: true, Auth: a, Calls: &Calls{Limits: NewLimiter(perClient, nil), Audit: audit}})

	for _, revision := range []string{ModernProtocol, handshakeRevision, "2025-06-18"} {
		resp := post(t, base+Path, strings.NewReader(initializeBody), map[string]string{"Authorization": "Bearer " + bobToken})
		if resp.StatusCode != http.StatusOK || resp.Header.Get(sessionIDHeader) != "" {
			t.Errorf("initialize on a stateless server: status %d, session %q; want 200 and no session", resp.StatusCode, resp.Header.Get(sessionIDHeader))
		}
		if _, err := connectRevision(t, base+Path, "wrong-token-0123456789abcdef01", revision); err == nil {
			t.Errorf("%s: a wrong token connected", revision)
		}
		alice, err := connectRevision(t, base+Path, aliceToken, revision)
		if err != nil {
			t.Fatalf("%s: %v", revision, err)
		}
		if got := alice.InitializeResult().ProtocolVersion; got != revision {
			t.Errorf("asked for %s, negotiated %s", revision, got)
		}
		if alice.ID() != "" {
			t.Errorf("%s: the client holds session %q on a stateless server", revision, alice.ID())
		}
		if got, _, err := callText(t, alice, "whoami", nil); err != nil || got != "alice" {
			t.Errorf("%s: whoami as alice = %q, %v", revision, got, err)
		}
	}
	// alice has made her 3 calls this minute; bob has his own.
	alice, _ := connectRevision(t, base+Path, aliceToken, ModernProtocol)
	if _, _, err := callText(t, alice, "whoami", nil); err == nil {
		t.Error("alice's 4th call in a minute went through a 3/m limit")
	}
	bob, _ := connectRevision(t, base+Path, bobToken, ModernProtocol)
	if got, _, err := callText(t, bob, "whoami", nil); err != nil || got != "bob" {
		t.Errorf("whoami as bob = %q, %v", got, err)
	}

	lines := readAuditLines(t, logPath)
	var clients []string
	for _, l := range lines {
		clients = append(clients, l["client"].(string)+":"+l["outcome"].(string))
	}
	if got, want := strings.Join(clients, " "), "alice:ok alice:ok alice:ok alice:rate-limited bob:ok"; got != want {
		t.Errorf("audit lines by client and outcome: %s, want %s", got, want)
	}
}
