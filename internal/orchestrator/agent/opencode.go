package agent

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// OpenCode is the OpenCode adapter (OPENCODE):
//
//	opencode run --format json --dir DIR --auto [-m provider/model] [--session ID] [args…]  < prompt
//
// Config: "model", "agent", "args" (extra flags). PWD is set to the worktree
// since OpenCode takes its project root from $PWD.
type OpenCode struct{}

func (OpenCode) Kind() string { return ToolOpenCode }

// Credentials: OpenCode reads OPENCODE_* and the keys of the model
// providers it talks to.
func (OpenCode) Credentials() []string {
	return []string{"OPENCODE_*", "ANTHROPIC_*", "OPENAI_*", "GEMINI_*", "GOOGLE_*",
		"OPENROUTER_*", "GROQ_*", "MISTRAL_*", "DEEPSEEK_*", "XAI_*"}
}

func (OpenCode) Check(spec RunSpec) error { return checkBinary("opencode", ToolOpenCode, spec.Path) }

func (OpenCode) Invocation(spec RunSpec) (Invocation, error) {
	extra, err := extraArgs(spec)
	if err != nil {
		return Invocation{}, err
	}
	argv := []string{"opencode", "run", "--format", "json"}
	if spec.Dir != "" {
		argv = append(argv, "--dir", spec.Dir)
	}
	argv = append(argv, "--auto")
	if m := configString(spec.Config, "model"); m != "" {
		argv = append(argv, "-m", m)
	}
	if a := configString(spec.Config, "agent"); a != "" {
		argv = append(argv, "--agent", a)
	}
	if spec.ResumeSession != "" {
		argv = append(argv, "--session", spec.ResumeSession)
	}
	argv = append(argv, extra...)
	env := pwdEnv(spec)
	if spec.ConfigDir != "" {
		// OpenCode keeps its sessions in one SQLite database under its
		// data directory; two runs at once (tasks in parallel) fail with
		// "database is locked" there. Each task's runs get a data
		// directory of the task's own, kept across its runs and restarts
		// (its sessions resume); the box copies the login in.
		env = append(env, "XDG_DATA_HOME="+OpenCodeDataHome(spec.ConfigDir))
	}
	if len(spec.MCPServers) > 0 {
		env = append(env, openCodeMCP(spec.MCPServers))
	}
	return Invocation{Argv: argv, Env: env, Stdin: spec.Instructions}, nil
}

// OpenCodeDataHome is the XDG data directory of a task's OpenCode runs,
// in the task's configuration directory.
func OpenCodeDataHome(configDir string) string { return filepath.Join(configDir, "data") }

func (OpenCode) NewParser() Parser { return &openCodeParser{} }

// openCodeFileTools are OpenCode's tools that would change files [U names].
var openCodeFileTools = map[string]bool{"edit": true, "write": true, "patch": true, "multiedit": true}

type openCodeParser struct {
	base
	sawError  bool
	lastErr   string // the last error the CLI reported: the reason of a failure
	sawOutput bool
	last      string
	cost      float64
	tokens    Tokens
	rejected  []any
}

func (p *openCodeParser) Line(line []byte, now time.Time) []Event {
	if len(strings.TrimSpace(string(line))) == 0 {
		return nil
	}
	m, ok := decode(line)
	if !ok {
		return p.rawLog(line, now)
	}
	out := p.setSession(str(m, "sessionID"), now)
	part := obj(m, "part")
	switch str(m, "type") {
	case "step_start":
	case "text":
		p.sawOutput = true
		p.last = str(part, "text")
		e := p.ev(now, KindMessage)
		e.Text = p.last
		out = append(out, e)
	case "reasoning":
		e := p.ev(now, KindMessage)
		e.Text = str(part, "text")
		e.Data = map[string]any{"reasoning": true}
		out = append(out, e)
	case "tool_use":
		p.sawOutput = true
		name, id := str(part, "tool"), str(part, "callID")
		state := obj(part, "state")
		call := p.ev(now, KindToolCall)
		call.Tool = name
		call.Text = str(state, "title")
		call.Data = map[string]any{"id": id, "input": state["input"]}
		res := p.ev(now, KindToolResult)
		res.Tool = name
		isErr := str(state, "status") == "error"
		res.Text = textOf(state["output"])
		if isErr {
			if msg := textOf(state["error"]); msg != "" {
				res.Text = msg
			}
		}
		res.Data = map[string]any{"id": id, "status": str(state, "status"), "is_error": isErr}
		if openCodeFileTools[name] {
			if files := filePaths(obj(state, "input")); len(files) > 0 {
				call.Data[DataFiles] = files // an attempt: the CLI may refuse it
			}
		}
		out = append(out, call, res)
		if isErr && strings.Contains(strings.ToLower(res.Text), "rejected permission") {
			d := p.ev(now, KindDenied)
			d.Tool, d.Text = name, res.Text
			d.Data = map[string]any{"id": id, "input": state["input"]}
			out = append(out, d)
		}
	case "step_finish":
		tk := obj(part, "tokens")
		cache := obj(tk, "cache")
		step := Tokens{Input: i64(tk, "input"), Output: i64(tk, "output"), CacheRead: i64(cache, "read"), CacheWrite: i64(cache, "write")}
		cost, _ := num(part, "cost")
		p.cost += cost
		p.tokens = sumTokens(p.tokens, step)
		u := p.ev(now, KindUsage)
		u.Tokens = &step
		u.CostUSD = new(cost)
		u.Data = map[string]any{"cumulative": false, "reason": str(part, "reason")}
		out = append(out, u)
	case "error":
		p.sawError = true
		er := obj(m, "error")
		e := p.ev(now, KindError)
		e.Text = str(obj(er, "data"), "message")
		if e.Text == "" {
			e.Text = str(er, "name")
		}
		p.lastErr = e.Text
		e.Data = map[string]any{"name": str(er, "name"), "fatal": true}
		out = append(out, e)
	case "done":
		p.rejected = arr(m, "rejected")
		e := p.ev(now, KindLog)
		e.Text = "done: " + str(m, "reason")
		if len(p.rejected) > 0 {
			e.Text += "; rejected permissions: " + textOf(p.rejected)
		}
		e.Data = map[string]any{"reason": str(m, "reason"), "rejected": p.rejected}
		out = append(out, e)
		for _, r := range p.rejected {
			d := p.ev(now, KindDenied)
			d.Tool, d.Text = textOf(r), "permission rejected"
			out = append(out, d)
		}
	default:
		out = append(out, p.rawLog(line, now)...)
	}
	return out
}

// Finish emits the completion: OpenCode's terminal event is the process
// exit. Success is exit 0, no error event and some text or tool output.
func (p *openCodeParser) Finish(exitCode int, now time.Time) []Event {
	ok := exitCode == 0 && !p.sawError && p.sawOutput
	text := p.last
	switch {
	case p.lastErr != "":
		text = p.lastErr
	case exitCode != 0:
		text = fmt.Sprintf("exited with code %d", exitCode)
	case p.sawError:
		text = "the run reported an error"
	case !p.sawOutput:
		text = "the run produced no output"
	}
	tk := p.tokens
	data := map[string]any{"exit_code": exitCode}
	if len(p.rejected) > 0 {
		data["degraded"] = true
		data["rejected"] = p.rejected
	}
	e := p.complete(now, ok, text, data)
	e.CostUSD = new(p.cost)
	e.Tokens = &tk
	return []Event{e}
}
