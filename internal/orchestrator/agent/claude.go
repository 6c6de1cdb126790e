package agent

import (
	"strings"
	"time"
)

// Claude is the Claude Code adapter (CLAUDECODE):
//
//	claude -p --output-format stream-json --verbose --permission-mode acceptEdits [--model M] [--resume ID] [args…]  < prompt
//
// Config: "model", "permission_mode" (default acceptEdits), "args" (extra flags).
type Claude struct{}

func (Claude) Kind() string { return ToolClaudeCode }

// Credentials: Claude Code reads ANTHROPIC_* (API key, auth token, base
// URL, model) and CLAUDE_* (OAuth token, config dir, Bedrock/Vertex
// switches); IS_SANDBOX=1, set by whoever runs the server in a disposable
// container, lets it use bypassPermissions as root.
func (Claude) Credentials() []string { return []string{"ANTHROPIC_*", "CLAUDE_*", "IS_SANDBOX"} }

func (Claude) Check(spec RunSpec) error { return checkBinary("claude", ToolClaudeCode, spec.Path) }

func (Claude) Invocation(spec RunSpec) (Invocation, error) {
	extra, err := extraArgs(spec)
	if err != nil {
		return Invocation{}, err
	}
	mode := configString(spec.Config, "permission_mode")
	if mode == "" {
		mode = "acceptEdits"
	}
	argv := []string{"claude", "-p", "--output-format", "stream-json", "--verbose", "--permission-mode", mode}
	if m := configString(spec.Config, "model"); m != "" {
		argv = append(argv, "--model", m)
	}
	if spec.ResumeSession != "" {
		argv = append(argv, "--resume", spec.ResumeSession)
	}
	if len(spec.MCPServers) > 0 {
		config, allowed := claudeMCP(spec.MCPServers)
		argv = append(argv, "--mcp-config", config, "--allowedTools", strings.Join(allowed, ","))
	}
	argv = append(argv, extra...)
	return Invocation{Argv: argv, Env: pwdEnv(spec), Stdin: spec.Instructions}, nil
}

func (Claude) NewParser() Parser { return &claudeParser{tools: map[string]string{}} }

// claudeFileTools are the tools whose input names a file they would change.
var claudeFileTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

type claudeParser struct {
	base
	tools map[string]string // tool_use id → tool name
}

func (p *claudeParser) Line(line []byte, now time.Time) []Event {
	if len(strings.TrimSpace(string(line))) == 0 {
		return nil
	}
	m, ok := decode(line)
	if !ok {
		return p.rawLog(line, now)
	}
	out := p.setSession(str(m, "session_id"), now)
	switch str(m, "type") {
	case "system":
		switch sub := str(m, "subtype"); sub {
		case "init":
			if len(out) > 0 {
				out[0].Data["model"] = str(m, "model")
				out[0].Data["cwd"] = str(m, "cwd")
			}
		case "api_retry":
			e := p.ev(now, KindError)
			e.Text = "API retry: " + textOf(m["error"])
			e.Data = map[string]any{"fatal": false, "attempt": m["attempt"], "max_retries": m["max_retries"]}
			out = append(out, e)
		default:
			e := p.ev(now, KindLog)
			e.Text = "system: " + sub
			out = append(out, e)
		}
	case "assistant":
		msg := obj(m, "message")
		sub := map[string]any{}
		if id := str(m, "parent_tool_use_id"); id != "" {
			sub["parent_tool_use_id"] = id
		}
		for _, c := range arr(msg, "content") {
			b, _ := c.(map[string]any)
			switch str(b, "type") {
			case "text":
				e := p.ev(now, KindMessage)
				e.Text = str(b, "text")
				e.Data = copyData(sub)
				out = append(out, e)
			case "thinking":
				e := p.ev(now, KindMessage)
				e.Text = str(b, "thinking")
				e.Data = copyData(sub)
				e.Data["reasoning"] = true
				out = append(out, e)
			case "tool_use":
				name, id := str(b, "name"), str(b, "id")
				p.tools[id] = name
				input := obj(b, "input")
				e := p.ev(now, KindToolCall)
				e.Tool = name
				e.Text = denialTarget(input) // what the call is about, for the log
				e.Data = copyData(sub)
				e.Data["id"] = id
				e.Data["input"] = b["input"]
				if claudeFileTools[name] {
					if files := filePaths(input); len(files) > 0 {
						e.Data[DataFiles] = files // an attempt: the CLI may refuse it
					}
				}
				out = append(out, e)
			}
		}
		if errCode := str(m, "error"); errCode != "" {
			e := p.ev(now, KindError)
			e.Text = errCode
			e.Data = map[string]any{"code": errCode}
			out = append(out, e)
		}
	case "user":
		for _, c := range arr(obj(m, "message"), "content") {
			b, _ := c.(map[string]any)
			if str(b, "type") != "tool_result" {
				continue
			}
			id := str(b, "tool_use_id")
			e := p.ev(now, KindToolResult)
			e.Tool = p.tools[id]
			e.Text = textOf(b["content"])
			e.Data = map[string]any{"id": id, "is_error": boolean(b, "is_error")}
			out = append(out, e)
		}
	case "result":
		sub, isErr := str(m, "subtype"), boolean(m, "is_error")
		u := p.ev(now, KindUsage)
		if cost, ok := num(m, "total_cost_usd"); ok {
			u.CostUSD = new(cost)
		}
		if usage := obj(m, "usage"); usage != nil {
			u.Tokens = &Tokens{
				Input:      i64(usage, "input_tokens"),
				Output:     i64(usage, "output_tokens"),
				CacheRead:  i64(usage, "cache_read_input_tokens"),
				CacheWrite: i64(usage, "cache_creation_input_tokens"),
			}
		}
		u.Data = map[string]any{"cumulative": true}
		if mu := obj(m, "modelUsage"); mu != nil {
			u.Data["model_usage"] = mu
		}
		out = append(out, u)
		success := sub == "success" && !isErr
		text := str(m, "result")
		if !success {
			e := p.ev(now, KindError)
			e.Text = text
			if errs := arr(m, "errors"); len(errs) > 0 {
				e.Text = strings.TrimSpace(strings.Join([]string{text, textOf(errs)}, "\n"))
			}
			if e.Text == "" {
				e.Text = sub
			}
			e.Data = map[string]any{"fatal": true, "subtype": sub, "terminal_reason": str(m, "terminal_reason")}
			out = append(out, e)
		}
		data := map[string]any{"subtype": sub}
		if n, ok := num(m, "num_turns"); ok {
			data["num_turns"] = int64(n)
		}
		if d, ok := num(m, "duration_ms"); ok {
			data["duration_ms"] = int64(d)
		}
		for _, d := range arr(m, "permission_denials") {
			out = append(out, p.denial(d, now))
		}
		data[DataSessionCost] = true // total_cost_usd counts the whole session; usage is this run's
		c := p.complete(now, success, text, data)
		c.CostUSD, c.Tokens = u.CostUSD, u.Tokens // run totals, also on the completion
		out = append(out, c)
	case "stream_event":
		// Partial-message deltas (--include-partial-messages): the whole
		// message follows as an assistant line, which is what is logged.
	default:
		out = append(out, p.rawLog(line, now)...)
	}
	return out
}

// denial is the event of one result.permission_denials entry
// ({tool_name, tool_use_id, tool_input}).
func (p *claudeParser) denial(v any, now time.Time) Event {
	d, _ := v.(map[string]any)
	e := p.ev(now, KindDenied)
	e.Tool = str(d, "tool_name")
	input := obj(d, "tool_input")
	e.Text = denialTarget(input)
	e.Data = map[string]any{"id": str(d, "tool_use_id"), "input": d["tool_input"]}
	return e
}

// denialTarget is what a call (refused or not) is about: its file or
// command.
func denialTarget(input map[string]any) string {
	if f := filePaths(input); len(f) > 0 {
		return f[0]
	}
	return str(input, "command")
}

func (p *claudeParser) Finish(exitCode int, now time.Time) []Event { return p.finish(exitCode, now) }

func copyData(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	return out
}
