package mcpx

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"golang.org/x/time/rate"
)

// CodeRateLimited is the JSON-RPC error code of a tool call refused by a
// rate limit (in the range JSON-RPC leaves to servers; 29 as in HTTP 429).
// Its data holds retry_after_ms: the call succeeds if made again after
// that long.
const CodeRateLimited = -32029

// Rate is a token bucket: Burst calls at once, refilled at PerSecond.
type Rate struct {
	PerSecond float64
	Burst     int
	text      string
}

func (r Rate) String() string { return r.text }

// ParseRate reads N/UNIT[:BURST]: N calls per s, m or h (N alone is per
// second), in bursts of BURST (default N, at least 1). E.g. 20/s, 600/m,
// 10/s:50.
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	bad := func(why string) (Rate, error) {
		return Rate{}, fmt.Errorf("invalid rate %q: %s (want N/UNIT[:BURST] with UNIT s, m or h, e.g. 20/s or 10/s:50)", s, why)
	}
	spec, burstText, hasBurst := strings.Cut(s, ":")
	countText, unit, _ := strings.Cut(spec, "/")
	n, err := strconv.ParseFloat(strings.TrimSpace(countText), 64)
	if err != nil || n <= 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return bad("N must be a positive number")
	}
	var per time.Duration
	switch strings.TrimSpace(unit) {
	case "", "s", "sec", "second":
		per = time.Second
	case "m", "min", "minute":
		per = time.Minute
	case "h", "hour":
		per = time.Hour
	default:
		return bad("unknown unit " + unit)
	}
	burst := max(1, int(math.Ceil(n)))
	if hasBurst {
		b, err := strconv.Atoi(strings.TrimSpace(burstText))
		if err != nil || b < 1 {
			return bad("BURST must be a positive integer")
		}
		burst = b
	}
	return Rate{PerSecond: n / per.Seconds(), Burst: burst, text: s}, nil
}

// ParseToolRate reads TOOL=RATE, e.g. exec_command=5/s.
func ParseToolRate(s string) (string, Rate, error) {
	name, spec, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return "", Rate{}, fmt.Errorf("invalid tool rate %q: want TOOL=RATE, e.g. exec_command=5/s", s)
	}
	r, err := ParseRate(spec)
	return name, r, err
}

// Limiter holds the token buckets of the rate limits: one per client, and
// one per client and limited tool. A client's calls never take from
// another client's buckets, so one client flooding a server slows only
// itself. Without tokens, every caller is the same client (the local
// user).
type Limiter struct {
	client Rate // PerSecond 0: no per-client limit
	tools  map[string]Rate
	now    func() time.Time // the time the buckets refill by: time.Now, or a test's clock

	mu      sync.Mutex
	buckets map[bucketKey]*rate.Limiter
}

type bucketKey struct{ client, tool string } // tool "" is the client's own bucket

// NewLimiter limits each client to client (zero Rate: unlimited) and each
// client's calls of a tool named in tools to its rate. It is nil when
// nothing is limited.
func NewLimiter(client Rate, tools map[string]Rate) *Limiter {
	if client.PerSecond <= 0 && len(tools) == 0 {
		return nil
	}
	return &Limiter{client: client, tools: tools, now: time.Now, buckets: map[bucketKey]*rate.Limiter{}}
}

// RateLimitError is a tool call refused by a rate limit.
type RateLimitError struct {
	Client     string
	Tool       string
	Limit      string // "client" or "tool": which bucket was empty
	Rate       Rate
	RetryAfter time.Duration
}

// RetryAfterMS is RetryAfter in whole milliseconds, at least 1.
func (e *RateLimitError) RetryAfterMS() int64 {
	return max(1, int64(math.Ceil(float64(e.RetryAfter)/float64(time.Millisecond))))
}

func (e *RateLimitError) Error() string {
	what := "client " + strconv.Quote(e.Client) + " is over its limit of " + e.Rate.String() + " calls"
	if e.Limit == "tool" {
		what = "client " + strconv.Quote(e.Client) + " is over its limit of " + e.Rate.String() + " calls of " + e.Tool
	}
	return fmt.Sprintf("rate limited: %s; retry in %d ms", what, e.RetryAfterMS())
}

// RPCError is the JSON-RPC error the call is answered with: code
// CodeRateLimited, data {retry_after_ms, limit, rate, tool}.
func (e *RateLimitError) RPCError() *jsonrpc.Error {
	data, _ := json.Marshal(map[string]any{
		"retry_after_ms": e.RetryAfterMS(), "limit": e.Limit, "rate": e.Rate.String(), "tool": e.Tool, "retryable": true,
	})
	return &jsonrpc.Error{Code: CodeRateLimited, Message: e.Error(), Data: data}
}

// Allow takes a token from each bucket a call of tool by client draws on.
// When one is empty it takes none and says how long to wait.
func (l *Limiter) Allow(client, tool string) *RateLimitError {
	if l == nil {
		return nil
	}
	now := l.now()
	var refused *RateLimitError
	var taken []*rate.Reservation
	try := func(key bucketKey, r Rate, limit string) {
		res := l.bucket(key, r).ReserveN(now, 1)
		if d := res.DelayFrom(now); !res.OK() || d > 0 {
			res.CancelAt(now)
			if refused == nil || d > refused.RetryAfter {
				refused = &RateLimitError{Client: client, Tool: tool, Limit: limit, Rate: r, RetryAfter: d}
			}
			return
		}
		taken = append(taken, res)
	}
	if l.client.PerSecond > 0 {
		try(bucketKey{client: client}, l.client, "client")
	}
	if r, ok := l.tools[tool]; ok {
		try(bucketKey{client: client, tool: tool}, r, "tool")
	}
	if refused != nil {
		for _, res := range taken {
			res.CancelAt(now)
		}
	}
	return refused
}

func (l *Limiter) bucket(key bucketKey, r Rate) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		b = rate.NewLimiter(rate.Limit(r.PerSecond), r.Burst)
		l.buckets[key] = b
	}
	return b
}
