package mcpx

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeSecrets are argument values that must never reach the audit log.
const (
	fakeGitHubToken = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	fakePassword    = "hunter2-correct-horse"
)

// Every tool call over HTTP is one audit line naming the client, the
// server, the tool and the outcome, with its arguments and no secret.
func TestAuditLineForEveryCall(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "audit.log")
	audit, err := OpenAuditLog(logPath, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer audit.Close()
	a, err := NewAuth("", writeTokenFile(t, "", "alice "+aliceToken+"\nbob "+bobToken+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	base := startTeam(t, Transport{Name: "team", Auth: a, Calls: &Calls{Audit: audit}})
	alice := mustConnectAs(t, base+Path, aliceToken)
	bob := mustConnectAs(t, base+Path, bobToken)

	args := map[string]any{
		"password": fakePassword,
		"note":     "push with " + fakeGitHubToken,
		"nested":   map[string]any{"api_key": "plain-looking-value", "list": []any{fakeGitHubToken, "kept"}},
		"title":    "Fix the login",
	}
	if _, _, err := callText(t, alice, "record", args); err != nil {
		t.Fatal(err)
	}
	if _, res, err := callText(t, bob, "fail", map[string]any{"x": 1}); err != nil || !res.IsError {
		t.Fatalf("fail: %v, %+v", err, res)
	}
	if _, _, err := callText(t, bob, "no_such_tool", map[string]any{"token": fakeGitHubToken}); err == nil {
		t.Fatal("an unknown tool succeeded")
	}
	if _, _, err := callText(t, alice, "whoami", nil); err != nil {
		t.Fatal(err)
	}

	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{fakePassword, fakeGitHubToken, "plain-looking-value", aliceToken, bobToken} {
		if strings.Contains(string(data), secret) {
			t.Errorf("the audit log holds a secret %q:\n%s", secret, data)
		}
	}
	lines := readAuditLines(t, logPath)
	if len(lines) != 4 {
		t.Fatalf("%d audit lines, want 4 (one per call):\n%s", len(lines), data)
	}
	want := []struct{ client, tool, outcome string }{
		{"alice", "record", "ok"}, {"bob", "fail", "error"}, {"bob", "no_such_tool", "protocol-error"}, {"alice", "whoami", "ok"},
	}
	for i, w := range want {
		l := lines[i]
		if l["client"] != w.client || l["tool"] != w.tool || l["outcome"] != w.outcome || l["server"] != "team" {
			t.Errorf("line %d = %v, want client %s, tool %s, outcome %s, server team", i, l, w.client, w.tool, w.outcome)
		}
		if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(l["time"])); err != nil {
			t.Errorf("line %d: time %v: %v", i, l["time"], err)
		}
		if d, ok := l["duration_ms"].(float64); !ok || d < 0 {
			t.Errorf("line %d: duration_ms = %v", i, l["duration_ms"])
		}
		if s, _ := l["session"].(string); s == "" {
			t.Errorf("line %d: no session", i)
		}
	}
	got := lines[0]["arguments"].(map[string]any)
	if got["password"] != "[REDACTED]" || got["note"] != "push with [REDACTED]" || got["title"] != "Fix the login" {
		t.Errorf("arguments = %v: want password and the token in note redacted, title kept", got)
	}
	nested := got["nested"].(map[string]any)
	if nested["api_key"] != "[REDACTED]" || fmt.Sprint(nested["list"]) != "[[REDACTED] kept]" {
		t.Errorf("nested arguments = %v", nested)
	}
	if msg, _ := lines[2]["error"].(string); !strings.Contains(msg, "unknown tool") {
		t.Errorf("the unknown tool's line has error %q", msg)
	}
}

// Lines written at once from many goroutines across rotations are all
// kept, whole, and the files stay near the size limit.
func TestAuditRotationKeepsEveryLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	const maxBytes, keep = 8 << 10, 200 // enough files that none is dropped
	audit, err := OpenAuditLog(path, maxBytes, keep)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				args, _ := json.Marshal(map[string]any{"writer": w, "i": i, "padding": strings.Repeat("x", 40)})
				if err := audit.Write(AuditRecord{Time: time.Now(), Client: fmt.Sprint("c", w), Server: "s", Tool: "t", Outcome: OutcomeOK, Arguments: args}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	audit.Close()

	files, _ := filepath.Glob(path + "*")
	if len(files) < 10 {
		t.Fatalf("%d files, want the log rotated many times", len(files))
	}
	seen := map[string]bool{}
	for _, f := range files {
		st, _ := os.Stat(f)
		if st.Size() > maxBytes {
			t.Errorf("%s has %d bytes, over the %d limit", f, st.Size(), maxBytes)
		}
		for _, l := range readAuditLines(t, f) {
			args := l["arguments"].(map[string]any)
			key := fmt.Sprint(args["writer"], "/", args["i"])
			if seen[key] {
				t.Errorf("line %s written twice", key)
			}
			seen[key] = true
		}
	}
	if len(seen) != writers*each {
		t.Errorf("%d lines kept, want %d", len(seen), writers*each)
	}

	// With keep 3, only FILE and FILE.1 to FILE.3 remain.
	small := filepath.Join(dir, "small.log")
	audit, err = OpenAuditLog(small, 512, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		audit.Write(AuditRecord{Client: "c", Server: "s", Tool: fmt.Sprint("t", i), Outcome: OutcomeOK})
	}
	audit.Close()
	files, _ = filepath.Glob(small + "*")
	if len(files) != 4 {
		t.Errorf("files %v, want small.log and 3 rotated ones", files)
	}
}

func TestAuditStreamAndOddArguments(t *testing.T) {
	var b strings.Builder
	audit := NewAuditStream(&b)
	audit.Write(AuditRecord{Client: "c", Server: "s", Tool: "t", Outcome: OutcomeOK, Arguments: json.RawMessage(`not json`)})
	audit.Write(AuditRecord{Client: "c", Server: "s", Tool: "t", Outcome: OutcomeOK})
	audit.Write(AuditRecord{Client: "c", Server: "s", Tool: "t", Outcome: OutcomeProtocolError, Error: "bad key " + fakeGitHubToken})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("lines: %q", lines)
	}
	if !strings.Contains(lines[0], `"arguments":"[not JSON, 8 bytes]"`) || !strings.Contains(lines[1], `"arguments":{}`) {
		t.Errorf("odd arguments recorded as %q", lines[:2])
	}
	if strings.Contains(lines[2], fakeGitHubToken) {
		t.Errorf("a secret in an error message was kept: %s", lines[2])
	}
}
