package agent

import (
	"errors"
	"strings"
	"time"
)

// GeminiPromptFlag is the short -p text: the real prompt goes on stdin and
// Gemini appends the -p text to it. -p also keeps the run headless and is
// required with --resume.
const GeminiPromptFlag = "Carry out the instructions above."

// Gemini is the Gemini CLI adapter (GEMINI):
//
//	gemini -p <short> --output-format stream-json --approval-mode yolo --skip-trust [-m M] [--resume ID] [args…]  < prompt
//
// Config: "model", "approval_mode" (default yolo), "args" (extra flags).
type Gemini struct{}

func (Gemini) Kind() string { return ToolGemini }

// Credentials: Gemini CLI reads GEMINI_* and GOOGLE_* (API key, Vertex
// project and location, application credentials).
func (Gemini) Credentials() []string { return []string{"GEMINI_*", "GOOGLE_*"} }

func (Gemini) Check(spec RunSpec) error { return checkBinary("gemini", ToolGemini, spec.Path) }

func (Gemini) Invocation(spec RunSpec) (Invocation, error) {
	extra, err := extraArgs(spec)
	if err != nil {
		return Invocation{}, err
	}
	mode := configString(spec.Config, "approval_mode")
	if mode == "" {
		mode = "yolo"
	}
	argv := []string{"gemini", "-p", GeminiPromptFlag, "--output-format", "stream-json", "--approval-mode", mode, "--skip-trust"}
	if m := configString(spec.Config, "model"); m != "" {
		argv = append(argv, "-m", m)
	}
	if spec.ResumeSession != "" {
		argv = append(argv, "--resume", spec.ResumeSession)
	}
	argv = append(argv, extra...)
	env := append(pwdEnv(spec), "GEMINI_CLI_TRUST_WORKSPACE=true")
	if len(spec.MCPServers) > 0 {
		if spec.ConfigDir == "" {
			return Invocation{}, errors.New("gemini: MCP servers need a configuration directory")
		}
		mcp, err := geminiMCP(spec.MCPServers, spec.ConfigDir)
		if err != nil {
			return Invocation{}, err
		}
		env = append(env, mcp...)
	}
	return Invocation{Argv: argv, Env: env, Stdin: spec.Instructions}, nil
}

func (Gemini) NewParser() Parser { return &geminiParser{tools: map[string]string{}} }

// geminiFileTools are Gemini's tools that write files [U names].
var geminiFileTools = map[string]bool{"write_file": true, "replace": true, "edit": true}

type geminiParser struct {
	base
	tools   map[string]string // tool_id → tool_name
	pending *Event            // the assistant message whose delta chunks are still arriving
	last    string            // the last whole assistant message: the final answer
}

// flush returns the assistant message gathered from delta chunks, if any:
// one message is one log entry, however many chunks carried it.
func (p *geminiParser) flush() []Event {
	if p.pending == nil {
		return nil
	}
	e := *p.pending
	p.pending = nil
	p.last = e.Text
	return []Event{e}
}

func (p *geminiParser) Line(line []byte, now time.Time) []Event {
	if len(strings.TrimSpace(string(line))) == 0 {
		return nil
	}
	m, ok := decode(line)
	if !ok {
		return append(p.flush(), p.rawLog(line, now)...)
	}
	if str(m, "type") == "message" && str(m, "role") == "assistant" && boolean(m, "delta") {
		if p.pending == nil {
			e := p.ev(now, KindMessage)
			p.pending = &e
		}
		p.pending.Text += str(m, "content")
		return nil
	}
	// Anything else ends the message being streamed (text said before a
	// tool call is a message of its own).
	out := p.flush()
	switch str(m, "type") {
	case "init":
		started := p.setSession(str(m, "session_id"), now)
		if len(started) > 0 {
			started[0].Data["model"] = str(m, "model")
		}
		out = append(out, started...)
	case "message":
		if str(m, "role") != "assistant" {
			return out
		}
		e := p.ev(now, KindMessage)
		e.Text = str(m, "content")
		p.last = e.Text
		out = append(out, e)
	case "tool_use":
		name, id := str(m, "tool_name"), str(m, "tool_id")
		p.tools[id] = name
		e := p.ev(now, KindToolCall)
		e.Tool = name
		e.Text = denialTarget(obj(m, "parameters")) // what the call is about, for the log
		e.Data = map[string]any{"id": id, "input": m["parameters"]}
		if geminiFileTools[name] {
			if files := filePaths(obj(m, "parameters")); len(files) > 0 {
				e.Data[DataFiles] = files // an attempt: the CLI may refuse it
			}
		}
		out = append(out, e)
	case "tool_result":
		id := str(m, "tool_id")
		isErr := str(m, "status") == "error"
		e := p.ev(now, KindToolResult)
		e.Tool = p.tools[id]
		e.Text = textOf(m["output"])
		er := obj(m, "error")
		if isErr && e.Text == "" {
			e.Text = str(er, "message")
		}
		e.Data = map[string]any{"id": id, "is_error": isErr}
		out = append(out, e)
		if isErr && geminiRefused(str(er, "type"), str(er, "message")) {
			d := p.ev(now, KindDenied)
			d.Tool, d.Text = e.Tool, str(er, "message")
			d.Data = map[string]any{"id": id, "type": str(er, "type")}
			out = append(out, d)
		}
	case "error":
		e := p.ev(now, KindError)
		e.Text = str(m, "message")
		e.Data = map[string]any{"severity": str(m, "severity"), "fatal": false}
		out = append(out, e)
	case "result":
		success := str(m, "status") == "success"
		var tokens *Tokens
		if stats := obj(m, "stats"); stats != nil {
			u := p.ev(now, KindUsage)
			u.Tokens = &Tokens{Input: i64(stats, "input_tokens"), Output: i64(stats, "output_tokens"), CacheRead: i64(stats, "cached")}
			u.Data = map[string]any{"cumulative": true, "total_tokens": i64(stats, "total_tokens")}
			if tc, ok := num(stats, "tool_calls"); ok {
				u.Data["tool_calls"] = int64(tc)
			}
			out = append(out, u)
			tokens = u.Tokens
		}
		text := p.last // the final answer on success: the last assistant message
		if er := obj(m, "error"); er != nil || !success {
			text = str(er, "message")
			if text == "" {
				text = "result status " + str(m, "status")
			}
			e := p.ev(now, KindError)
			e.Text = text
			e.Data = map[string]any{"fatal": true, "type": str(er, "type")}
			out = append(out, e)
		}
		c := p.complete(now, success, text, map[string]any{"status": str(m, "status")})
		c.Tokens = tokens
		out = append(out, c)
	default:
		out = append(out, p.rawLog(line, now)...)
	}
	return out
}

// geminiRefused tells a refused tool call from one that ran and failed:
// policy denials, and tools a non-yolo headless run removed [U names].
func geminiRefused(typ, msg string) bool {
	s := strings.ToLower(typ + " " + msg)
	for _, w := range []string{"denied", "permission", "policy", "not_registered", "not found in registry"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func (p *geminiParser) Finish(exitCode int, now time.Time) []Event {
	return append(p.flush(), p.finish(exitCode, now)...)
}
