package agent

import (
	"regexp"
	"strings"
	"sync"
	"time"
)

// Codex is the OpenAI Codex adapter (CODEX):
//
//	codex exec --json --cd DIR --sandbox workspace-write -c approval_policy="never" [-m M] [args…] [resume ID]  < prompt
//
// Every option goes before the resume subcommand, as the official SDK does.
// Config: "model", "sandbox" (default workspace-write), "args" (extra flags).
type Codex struct{}

func (Codex) Kind() string { return ToolCodex }

// Credentials: Codex reads OPENAI_* and CODEX_* (CODEX_API_KEY, CODEX_HOME).
func (Codex) Credentials() []string { return []string{"OPENAI_*", "CODEX_*"} }

func (Codex) Check(spec RunSpec) error { return checkBinary("codex", ToolCodex, spec.Path) }

func (Codex) Invocation(spec RunSpec) (Invocation, error) {
	extra, err := extraArgs(spec)
	if err != nil {
		return Invocation{}, err
	}
	sandbox := configString(spec.Config, "sandbox")
	if sandbox == "" {
		sandbox = "workspace-write"
	}
	argv := []string{"codex", "exec", "--json"}
	if spec.Dir != "" {
		argv = append(argv, "--cd", spec.Dir)
	}
	argv = append(argv, "--sandbox", sandbox, "-c", `approval_policy="never"`)
	if m := configString(spec.Config, "model"); m != "" {
		argv = append(argv, "-m", m)
	}
	argv = append(argv, codexMCP(spec.MCPServers)...)
	argv = append(argv, extra...)
	if spec.ResumeSession != "" {
		argv = append(argv, "resume", spec.ResumeSession)
	}
	return Invocation{Argv: argv, Env: pwdEnv(spec), Stdin: spec.Instructions}, nil
}

func (Codex) NewParser() Parser { return &codexParser{} }

type codexParser struct {
	base
	failed bool // sticky: a fatal error or failed turn was seen
	last   string
}

func (p *codexParser) Line(line []byte, now time.Time) []Event {
	if len(strings.TrimSpace(string(line))) == 0 {
		return nil
	}
	m, ok := decode(line)
	if !ok {
		return p.rawLog(line, now)
	}
	var out []Event
	switch typ := str(m, "type"); typ {
	case "thread.started":
		out = p.setSession(str(m, "thread_id"), now)
	case "turn.started":
		return nil
	case "item.updated":
		if item := obj(m, "item"); str(item, "type") == "todo_list" {
			return []Event{p.plan(item, now)}
		}
		return nil
	case "item.started":
		return p.itemStarted(obj(m, "item"), now)
	case "item.completed":
		return p.itemCompleted(obj(m, "item"), now)
	case "turn.completed":
		var tokens *Tokens
		if usage := obj(m, "usage"); usage != nil {
			u := p.ev(now, KindUsage)
			u.Tokens = &Tokens{
				Input:      i64(usage, "input_tokens"),
				Output:     i64(usage, "output_tokens"),
				CacheRead:  i64(usage, "cached_input_tokens"),
				CacheWrite: i64(usage, "cache_write_input_tokens"),
			}
			u.Data = map[string]any{"cumulative": true}
			if r, ok := num(usage, "reasoning_output_tokens"); ok {
				u.Data["reasoning_tokens"] = int64(r)
			}
			out = append(out, u)
			tokens = u.Tokens
		}
		// turn.completed.usage counts the whole thread, resumed runs included.
		c := p.complete(now, !p.failed, p.last, map[string]any{DataSessionTokens: true})
		c.Tokens = tokens
		out = append(out, c)
	case "turn.failed":
		p.failed = true
		msg := str(obj(m, "error"), "message")
		e := p.ev(now, KindError)
		e.Text = msg
		e.Data = map[string]any{"fatal": true}
		out = append(out, e, p.complete(now, false, msg, nil))
	case "error":
		p.failed = true
		e := p.ev(now, KindError)
		e.Text = str(m, "message")
		e.Data = map[string]any{"fatal": true}
		out = append(out, e)
	default:
		out = p.rawLog(line, now)
	}
	return out
}

func (p *codexParser) itemStarted(item map[string]any, now time.Time) []Event {
	id := str(item, "id")
	e := p.ev(now, KindToolCall)
	switch str(item, "type") {
	case "command_execution":
		e.Tool = "command_execution"
		e.Text = str(item, "command")
		e.Data = map[string]any{"id": id, "input": item["command"]}
	case "mcp_tool_call":
		e.Tool = str(item, "tool")
		e.Data = map[string]any{"id": id, "server": str(item, "server"), "input": item["arguments"]}
	case "web_search":
		e.Tool = "web_search"
		e.Text = str(item, "query")
		e.Data = map[string]any{"id": id, "input": item["query"]}
	case "todo_list":
		return []Event{p.plan(item, now)}
	default:
		return nil
	}
	return []Event{e}
}

func (p *codexParser) itemCompleted(item map[string]any, now time.Time) []Event {
	id := str(item, "id")
	status := str(item, "status")
	switch str(item, "type") {
	case "agent_message":
		p.last = str(item, "text")
		e := p.ev(now, KindMessage)
		e.Text = p.last
		return []Event{e}
	case "reasoning":
		e := p.ev(now, KindMessage)
		e.Text = str(item, "text")
		e.Data = map[string]any{"reasoning": true}
		return []Event{e}
	case "command_execution":
		e := p.ev(now, KindToolResult)
		e.Tool = "command_execution"
		e.Text = str(item, "aggregated_output")
		e.Data = map[string]any{"id": id, "status": status, "is_error": status == "failed" || status == "declined"}
		if c, ok := num(item, "exit_code"); ok {
			e.Data["exit_code"] = int64(c)
			if c != 0 {
				e.Data["is_error"] = true
			}
		}
		if status == "declined" {
			d := p.ev(now, KindDenied)
			d.Tool, d.Text = "command_execution", str(item, "command")
			d.Data = map[string]any{"id": id, "input": item["command"]}
			return []Event{e, d}
		}
		return []Event{e}
	case "mcp_tool_call":
		e := p.ev(now, KindToolResult)
		e.Tool = str(item, "tool")
		isErr := status == "failed"
		if er := obj(item, "error"); er != nil {
			isErr = true
			e.Text = str(er, "message")
		} else if res := obj(item, "result"); res != nil {
			e.Text = textOf(res["content"])
		}
		e.Data = map[string]any{"id": id, "server": str(item, "server"), "status": status, "is_error": isErr}
		return []Event{e}
	case "web_search":
		e := p.ev(now, KindToolResult)
		e.Tool = "web_search"
		e.Text = str(item, "query")
		e.Data = map[string]any{"id": id, "is_error": false}
		return []Event{e}
	case "file_change":
		// The patch the agent applied (or failed to). Codex reports it
		// only once done, so its call is logged here with its result;
		// what changed is read from git.
		var files []string
		var kinds []any
		for _, c := range arr(item, "changes") {
			ch, _ := c.(map[string]any)
			if path := str(ch, "path"); path != "" {
				files = append(files, path)
				kinds = append(kinds, str(ch, "kind"))
			}
		}
		call := p.ev(now, KindToolCall)
		call.Tool, call.Text = "file_change", strings.Join(files, ", ")
		call.Data = map[string]any{"id": id, "input": item["changes"], DataFiles: files}
		e := p.ev(now, KindToolResult)
		e.Tool, e.Text = "file_change", call.Text
		e.Data = map[string]any{"id": id, "status": status, "kinds": kinds, DataFiles: files, "is_error": status == "failed"}
		return []Event{call, e}
	case "todo_list":
		return []Event{p.plan(item, now)}
	case "error":
		e := p.ev(now, KindError)
		e.Text = str(item, "message")
		e.Data = map[string]any{"fatal": false}
		return []Event{e}
	}
	return nil
}

func (p *codexParser) Finish(exitCode int, now time.Time) []Event { return p.finish(exitCode, now) }

// plan renders a todo_list item (started, updated or completed) as a log event.
func (p *codexParser) plan(item map[string]any, now time.Time) Event {
	e := p.ev(now, KindLog)
	e.Text = "plan: " + textOf(item["items"])
	e.Data = map[string]any{"plan": item["items"], "id": str(item, "id")}
	return e
}

// codexRejectedPatch is the log line of a patch Codex's sandbox or
// approval policy rejected (under --sandbox read-only, say), which it
// writes only to stderr.
var codexRejectedPatch = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`codex_core::tools::router: error=(patch rejected: .*)$`)
})

// StderrLine turns a rejected patch into a refusal; it uses no parser
// state (see StderrReader).
func (p *codexParser) StderrLine(line []byte, now time.Time) []Event {
	m := codexRejectedPatch().FindSubmatch(line)
	if m == nil {
		return nil
	}
	return []Event{{Time: now, Kind: KindDenied, Tool: "file_change", Text: string(m[1])}}
}
