package mcpx

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/sudocode/sudocode/internal/testkit"
)

func TestParseRate(t *testing.T) {
	for spec, want := range map[string]Rate{
		"20/s":     {PerSecond: 20, Burst: 20},
		"20":       {PerSecond: 20, Burst: 20},
		"600/m":    {PerSecond: 10, Burst: 600},
		"3600/h":   {PerSecond: 1, Burst: 3600},
		"10/s:50":  {PerSecond: 10, Burst: 50},
		"0.5/s":    {PerSecond: 0.5, Burst: 1},
		" 5/min ":  {PerSecond: 5.0 / 60, Burst: 5},
		"2/second": {PerSecond: 2, Burst: 2},
	} {
		got, err := ParseRate(spec)
		if err != nil || got.PerSecond != want.PerSecond || got.Burst != want.Burst {
			t.Errorf("ParseRate(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	for _, spec := range []string{"", "x/s", "-1/s", "0/s", "5/d", "5/s:0", "5/s:x", "inf/s", "NaN/s"} {
		if _, err := ParseRate(spec); err == nil {
			t.Errorf("ParseRate(%q) accepted", spec)
		}
	}
	if name, r, err := ParseToolRate("exec_command=5/s"); err != nil || name != "exec_command" || r.PerSecond != 5 {
		t.Errorf("ParseToolRate = %q, %+v, %v", name, r, err)
	}
	for _, spec := range []string{"exec_command", "=5/s", "x=", "x=5/y"} {
		if _, _, err := ParseToolRate(spec); err == nil {
			t.Errorf("ParseToolRate(%q) accepted", spec)
		}
	}
}

// rateLimited returns the rate-limit error in err, if that is what it is.
func rateLimited(err error) (retryAfterMS int64, limit string, ok bool) {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeRateLimited {
		return 0, "", false
	}
	var data struct {
		RetryAfterMS int64  `json:"retry_after_ms"`
		Limit        string `json:"limit"`
	}
	if json.Unmarshal(rpcErr.Data, &data) != nil {
		return 0, "", false
	}
	return data.RetryAfterMS, data.Limit, true
}

// limiterAt is NewLimiter with its buckets refilled by clock's time: the
// test lets time pass by advancing the clock, not by waiting.
func limiterAt(clock *testkit.Clock, client Rate, tools map[string]Rate) *Limiter {
	l := NewLimiter(client, tools)
	l.now = clock.Now
	return l
}

// One client flooding the server is refused with a retryable error while
// another client's calls all go through; the flooder gets in again after
// the time it was told to wait, and not before.
func TestRateLimitFloodedClientDoesNotStarveAnother(t *testing.T) {
	a, err := NewAuth("", writeTokenFile(t, "", "alice "+aliceToken+"\nbob "+bobToken+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	perClient, _ := ParseRate("10/s")
	clock := testkit.NewClock(time.Now())
	var auditLines strings.Builder
	var auditMu sync.Mutex
	audit := NewAuditStream(writerFunc(func(p []byte) (int, error) {
		auditMu.Lock()
		defer auditMu.Unlock()
		return auditLines.Write(p)
	}))
	base := startTeam(t, Transport{Auth: a, Calls: &Calls{Limits: limiterAt(clock, perClient, nil), Audit: audit}})
	alice := mustConnectAs(t, base+Path, aliceToken)
	bob := mustConnectAs(t, base+Path, bobToken)

	var ok, limited, other atomic.Int64
	stop := make(chan struct{})
	var flood sync.WaitGroup
	for range 8 {
		flood.Add(1)
		go func() {
			defer flood.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, _, err := callText(t, alice, "whoami", nil)
				switch ms, limit, isLimited := rateLimited(err); {
				case err == nil:
					ok.Add(1)
				case isLimited && limit == "client" && ms > 0 && ms <= 1000:
					limited.Add(1)
				default:
					other.Add(1)
					t.Errorf("alice's flood: %v", err)
				}
			}
		}()
	}
	// The clock stands still until bob's calls: alice has her burst of 10,
	// then is refused.
	testkit.WaitFor(t, 20*time.Second, "alice's flood to be rate limited", func() bool { return limited.Load() > 0 })
	// Meanwhile bob calls at 5/s, half his limit: every call succeeds.
	for i := range 8 {
		if i > 0 {
			clock.Advance(200 * time.Millisecond)
		}
		got, _, err := callText(t, bob, "whoami", nil)
		if err != nil || got != "bob" {
			t.Errorf("bob's call %d during alice's flood: %q, %v", i, got, err)
		}
	}
	close(stop)
	flood.Wait()
	if limited.Load() == 0 || ok.Load() == 0 {
		t.Fatalf("alice's flood: %d ok, %d rate limited; want both", ok.Load(), limited.Load())
	}
	// 10 at once plus 10/s over the 1.4 s that passed.
	if n := ok.Load(); n > 24 {
		t.Errorf("alice got %d calls through in 1.4 s at 10/s with a burst of 10, want at most 24", n)
	}
	t.Logf("alice: %d ok, %d rate limited; bob: 8 ok", ok.Load(), limited.Load())

	// Told to wait, alice gets in after that long, and not a millisecond
	// sooner. The advice is that of a call made once the flood is over:
	// an earlier one's was overtaken by the flood's later calls taking the
	// tokens it counted on. Her bucket holds at most 10 tokens, so the
	// 11th call is refused at the latest.
	var ms int64
	for i := 0; ms == 0 && i <= perClient.Burst; i++ {
		_, _, err = callText(t, alice, "whoami", nil)
		if m, _, isLimited := rateLimited(err); isLimited {
			limited.Add(1)
			ms = m
		} else if err != nil {
			t.Fatalf("alice after the flood: %v", err)
		}
	}
	if ms == 0 {
		t.Fatalf("alice made %d calls at once after her flood, none refused", perClient.Burst+1)
	}
	clock.Advance(time.Duration(ms-1) * time.Millisecond)
	_, _, err = callText(t, alice, "whoami", nil)
	if _, _, isLimited := rateLimited(err); !isLimited {
		t.Errorf("alice told to wait %d ms got an answer %d ms later: %v", ms, ms-1, err)
	} else {
		limited.Add(1)
	}
	clock.Advance(time.Millisecond)
	if _, _, err = callText(t, alice, "whoami", nil); err != nil {
		t.Errorf("alice after waiting as told: %v", err)
	}
	auditMu.Lock()
	defer auditMu.Unlock()
	if n := strings.Count(auditLines.String(), `"outcome":"rate-limited"`); int64(n) != limited.Load() {
		t.Errorf("%d rate-limited audit lines, want %d", n, limited.Load())
	}
}

// A tool's own limit applies to each client's calls of that tool; the
// client's other tools, and other clients, are not slowed by it.
func TestRateLimitPerTool(t *testing.T) {
	a, err := NewAuth("", writeTokenFile(t, "", "alice "+aliceToken+"\nbob "+bobToken+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	slow, _ := ParseRate("2/m")
	clock := testkit.NewClock(time.Now())
	base := startTeam(t, Transport{Auth: a, Calls: &Calls{Limits: limiterAt(clock, Rate{}, map[string]Rate{"record": slow})}})
	alice := mustConnectAs(t, base+Path, aliceToken)
	bob := mustConnectAs(t, base+Path, bobToken)
	for i := range 2 {
		if _, _, err := callText(t, alice, "record", nil); err != nil {
			t.Fatalf("alice's record %d: %v", i, err)
		}
	}
	_, _, err = callText(t, alice, "record", nil)
	ms, limit, ok := rateLimited(err)
	if !ok || limit != "tool" || ms != 30_000 {
		t.Errorf("alice's third record: %v (retry %d ms, limit %q), want a tool limit of 30 s", err, ms, limit)
	}
	if err != nil && !strings.Contains(err.Error(), "retry in") {
		t.Errorf("the message does not say when to retry: %v", err)
	}
	for range 5 {
		if _, _, err := callText(t, alice, "whoami", nil); err != nil {
			t.Errorf("alice's whoami: %v", err)
		}
	}
	if _, _, err := callText(t, bob, "record", nil); err != nil {
		t.Errorf("bob's record: %v", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
