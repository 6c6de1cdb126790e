package mcpx

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Outcome is how a tool call ended.
type Outcome string

// The outcomes of a tool call.
const (
	OutcomeOK            Outcome = "ok"             // a result
	OutcomeError         Outcome = "error"          // a tool error (isError)
	OutcomeProtocolError Outcome = "protocol-error" // a JSON-RPC error (unknown tool, invalid arguments, …)
	OutcomeRateLimited   Outcome = "rate-limited"   // refused by a rate limit, not run
)

// Calls is what every tool call of every server goes through, by the
// middleware Install puts on their SDK servers: the rate limits before
// the call, an audit line and the metrics after it. Any part may be nil,
// and so may Calls.
type Calls struct {
	Audit   *AuditLog
	Limits  *Limiter
	Metrics *Metrics
	Logger  *slog.Logger // where a failure to write the audit log is reported
}

// CallInfo describes a tool call.
type CallInfo struct {
	Server  string // tracker, rulesets, coding, agent
	Session string // the MCP session id, when there is one
	Client  string // the caller
	Tool    string // the tool name, as the client sent it
	Args    json.RawMessage
}

// Call is a tool call under way.
type Call struct {
	c     *Calls
	info  CallInfo
	start time.Time
}

// maxToolName is the longest tool name an audit line repeats.
const maxToolName = 128

// Begin starts the bookkeeping of a call. A call refused by a rate limit
// gets the error to answer with, and is already audited and counted.
func (c *Calls) Begin(info CallInfo) (Call, *RateLimitError) {
	call := Call{c: c, info: info, start: time.Now()}
	if c == nil {
		return call, nil
	}
	if err := c.Limits.Allow(info.Client, info.Tool); err != nil {
		call.end(OutcomeRateLimited, false, err.Error())
		return call, err
	}
	return call, nil
}

// End records how the call ended. known is false when the tool does not
// exist (the call was refused as an unknown tool); errMsg is the message
// of a protocol error.
func (call Call) End(outcome Outcome, known bool, errMsg string) {
	if call.c == nil {
		return
	}
	call.end(outcome, known, errMsg)
}

func (call Call) end(outcome Outcome, known bool, errMsg string) {
	took := time.Since(call.start)
	call.c.Metrics.observe(call.info.Server, call.info.Tool, known, outcome, took)
	if call.c.Audit == nil {
		return
	}
	tool := call.info.Tool
	if len(tool) > maxToolName {
		tool = tool[:maxToolName] + "…"
	}
	err := call.c.Audit.Write(AuditRecord{
		Time: call.start, Client: call.info.Client, Server: call.info.Server, Session: call.info.Session, Tool: tool,
		Outcome: outcome, DurationMS: float64(took.Microseconds()) / 1000, Arguments: call.info.Args, Error: errMsg,
	})
	if err != nil && call.c.Logger != nil {
		call.c.Logger.Error("cannot write the audit log", "err", err)
	}
}

// Install puts t's controls on s, before any other middleware: every
// request's context learns its caller (CallerFrom: the name of the bearer
// token the HTTP request carried, else t.Caller) and what its token grants
// (GrantsFrom), and tool calls go
// through t.Calls; the methods of a capability s does not declare are
// not found; lists carry caching hints. Handler and Serve call it; call
// it yourself only for a server served some other way.
func Install(s *mcp.Server, t Transport) {
	s.AddReceivingMiddleware(t.middleware(), refuseUndeclared(s), cacheHints(t.auth().Enabled()))
}

func (t Transport) middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			caller := t.Caller
			if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
				caller = extra.TokenInfo.UserID
			}
			if caller != "" {
				ctx = WithCaller(ctx, caller)
			}
			ctx = WithGrants(ctx, t.Auth.GrantsOf(caller))
			ctr, isCall := req.(*mcp.CallToolRequest)
			if t.Calls == nil || method != "tools/call" || !isCall || ctr.Params == nil {
				return next(ctx, method, req)
			}
			info := CallInfo{Server: t.Name, Client: caller, Tool: ctr.Params.Name, Args: ctr.Params.Arguments}
			if ctr.Session != nil {
				info.Session = ctr.Session.ID()
			}
			call, limited := t.Calls.Begin(info)
			if limited != nil {
				return nil, limited.RPCError()
			}
			res, err := next(ctx, method, req)
			outcome, known, msg := OutcomeOK, true, ""
			switch r, _ := res.(*mcp.CallToolResult); {
			case err != nil:
				outcome, msg = OutcomeProtocolError, err.Error()
				var rpcErr *jsonrpc.Error
				// The SDK's wording ("unknown tool …") or the coding
				// profile's ("Unknown tool: …").
				known = !(errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(strings.ToLower(rpcErr.Message), "unknown tool"))
			case r != nil && r.IsError:
				outcome = OutcomeError
			}
			call.End(outcome, known, msg)
			return res, err
		}
	}
}
