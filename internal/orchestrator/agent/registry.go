package agent

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Tool kinds of create_task.
const (
	ToolClaudeCode = "CLAUDECODE"
	ToolGemini     = "GEMINI"
	ToolCodex      = "CODEX"
	ToolOpenCode   = "OPENCODE"
	ToolCommand    = "COMMAND"
)

var adapters = map[string]Adapter{
	ToolClaudeCode: Claude{},
	ToolGemini:     Gemini{},
	ToolCodex:      Codex{},
	ToolOpenCode:   OpenCode{},
	ToolCommand:    Command{},
}

// Kinds lists the known tool kinds, sorted.
func Kinds() []string {
	ks := make([]string, 0, len(adapters))
	for k := range adapters {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Lookup returns the adapter of a create_task tool kind (case-insensitive).
func Lookup(kind string) (Adapter, error) {
	if a, ok := adapters[strings.ToUpper(strings.TrimSpace(kind))]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("unknown tool %q: want one of %s", kind, strings.Join(Kinds(), ", "))
}

// EventSessionStarted is Data["event"] of the KindLog event that reports a
// newly known session id (persist it for resume).
const EventSessionStarted = "session_started"

// checkBinary reports a missing CLI binary on pathEnv (see LookPath) with
// the npm package to install.
func checkBinary(bin, kind, pathEnv string) error {
	if _, err := LookPath(bin, pathEnv); err != nil {
		return fmt.Errorf("%s is not installed: npm install -g %s", bin, Packages[kind])
	}
	return nil
}

// Packages are the agent CLIs' npm packages, by tool kind, at the
// versions this release is tested with (the real-CLI tests install and
// run these; every install hint and the README's table give the same).
var Packages = map[string]string{
	ToolClaudeCode: "@anthropic-ai/claude-code@2.1.331",
	ToolCodex:      "@openai/codex@0.169.0",
	ToolGemini:     "@google/gemini-cli@0.61.0",
	ToolOpenCode:   "opencode-ai@1.18.33",
}

// names are the agents as a person names them, by tool kind: the values
// of the CLI's --agent, which the page, the notes on issues and merge
// commits use too.
var names = map[string]string{
	ToolClaudeCode: "claude",
	ToolCodex:      "codex",
	ToolGemini:     "gemini",
	ToolOpenCode:   "opencode",
	ToolCommand:    "command",
}

// Name is the name --agent gives the agent of tool kind kind (the kind in
// lower case for one it does not know).
func Name(kind string) string {
	if n, ok := names[strings.ToUpper(kind)]; ok {
		return n
	}
	return strings.ToLower(kind)
}

// configString returns a string config value ("" when absent or not a string).
func configString(cfg map[string]any, key string) string {
	s, _ := cfg[key].(string)
	return strings.TrimSpace(s)
}

// configStrings returns a list config value given as []string or []any of strings.
func configStrings(cfg map[string]any, key string) ([]string, error) {
	v, ok := cfg[key]
	if !ok || v == nil {
		return nil, nil
	}
	switch t := v.(type) {
	case []string:
		return append([]string(nil), t...), nil
	case []any:
		out := make([]string, 0, len(t))
		for i, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("config.%s[%d] is %T, want a string", key, i, e)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("config.%s is %T, want a list of strings", key, v)
}

// extraArgs are Config["args"]: extra CLI flags appended to the argv.
func extraArgs(spec RunSpec) ([]string, error) {
	return configStrings(spec.Config, "args")
}

// pwdEnv is the extra environment every adapter sets: os/exec only adds
// PWD when cmd.Env is nil, and OpenCode trusts $PWD over cwd().
func pwdEnv(spec RunSpec) []string {
	if spec.Dir == "" {
		return nil
	}
	return []string{"PWD=" + spec.Dir}
}

func sumTokens(a, b Tokens) Tokens {
	return Tokens{a.Input + b.Input, a.Output + b.Output, a.CacheRead + b.CacheRead, a.CacheWrite + b.CacheWrite}
}

// base holds what every JSONL parser shares: the session id and whether a
// completion was emitted.
type base struct {
	session   string
	completed bool
	success   bool
}

func (b *base) SessionID() string { return b.session }

// setSession records id; it returns a session_started log event the first
// time an id (or a new id) is seen.
func (b *base) setSession(id string, now time.Time) []Event {
	if id == "" || id == b.session {
		return nil
	}
	b.session = id
	return []Event{{Time: now, Kind: KindLog, Text: "session started: " + id, SessionID: id, Data: map[string]any{"event": EventSessionStarted}}}
}

func (b *base) ev(now time.Time, kind string) Event {
	return Event{Time: now, Kind: kind, SessionID: b.session}
}

func (b *base) complete(now time.Time, ok bool, text string, data map[string]any) Event {
	b.completed, b.success = true, ok
	e := b.ev(now, KindCompletion)
	e.Success = new(ok)
	e.Text = text
	e.Data = data
	return e
}

// rawLog is the event of a line that is not a JSON object (or an unknown type).
func (b *base) rawLog(line []byte, now time.Time) []Event {
	e := b.ev(now, KindLog)
	e.Text = string(line)
	return []Event{e}
}

// finish is the shared Finish: a completion when the stream had none (a
// failure: no terminal event), or an error when a successful stream ended
// with a non-zero exit code.
func (b *base) finish(exitCode int, now time.Time) []Event {
	if !b.completed {
		return []Event{b.complete(now, false, fmt.Sprintf("exited with code %d without a terminal event", exitCode), map[string]any{"exit_code": exitCode})}
	}
	if b.success && exitCode != 0 {
		e := b.ev(now, KindError)
		e.Text = fmt.Sprintf("exited with code %d after a successful terminal event", exitCode)
		e.Data = map[string]any{"exit_code": exitCode}
		return []Event{e}
	}
	return nil
}

// decode parses a JSONL line into a generic object; ok is false for blank,
// truncated or non-object lines.
func decode(line []byte) (map[string]any, bool) {
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func obj(m map[string]any, key string) map[string]any {
	o, _ := m[key].(map[string]any)
	return o
}

func arr(m map[string]any, key string) []any {
	a, _ := m[key].([]any)
	return a
}

func num(m map[string]any, key string) (float64, bool) {
	f, ok := m[key].(float64)
	return f, ok
}

func i64(m map[string]any, key string) int64 {
	f, _ := num(m, key)
	return int64(f)
}

func boolean(m map[string]any, key string) bool {
	v, _ := m[key].(bool)
	return v
}

// textOf renders tool output that may be a string, a list of content
// blocks ({type:"text", text}) or any JSON value.
func textOf(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case []any:
		var parts []string
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					parts = append(parts, s)
					continue
				}
			}
			parts = append(parts, textOf(e))
		}
		return strings.Join(parts, "\n")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// filePaths picks file path arguments out of a tool input.
func filePaths(input map[string]any) []string {
	var out []string
	for _, k := range []string{"file_path", "filePath", "notebook_path", "path", "absolute_path"} {
		if s := str(input, k); s != "" {
			out = append(out, s)
			break
		}
	}
	return out
}
