package modelsim

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// conversation is what the simulator needs from any vendor's request: the
// turns in order, the tools offered, and whether a JSON answer is asked
// for, with its schema (Gemini's routing and next-speaker queries).
type conversation struct {
	system     string
	turns      []turn
	tools      []toolDef
	jsonMode   bool
	jsonSchema map[string]any
}

type turn struct {
	role string // user, assistant, or tool (a tool result)
	text string
}

// toolDef is one tool the CLI offers. custom marks an OpenAI freeform tool
// (its input is raw text, not JSON arguments).
type toolDef struct {
	name      string
	namespace string // the Responses namespace the tool is offered in
	custom    bool
	schema    map[string]any
}

// reply is what the model answers on one call.
type reply struct {
	status  int    // non-zero: answer with this HTTP error
	hang    bool   // never answer
	waitFor string // answer once this file exists
	parts   []part
}

// part is a text (streamed in chunks) or a tool call.
type part struct {
	text string
	call *toolCall
}

type toolCall struct {
	name      string
	namespace string // the called tool's (see toolDef)
	custom    bool
	args      map[string]any // JSON arguments
	input     string         // a custom tool's raw input
}

func (c *toolCall) argsJSON() string {
	b, _ := json.Marshal(c.args)
	return string(b)
}

// sideAnswer is the text of a call that offers no tools.
const sideAnswer = "Simulated answer."

// plan decides the reply. The script is in the last user turn that holds
// one; the step to take is the number of tool results since that turn, so
// the model moves on exactly when the CLI returns a tool result, and a
// retried call repeats its step. Only calls that offer tools follow the
// script: the CLIs' side queries (titles, routing, next-speaker checks)
// offer none and get a short text, or JSON that fits the schema asked for.
func plan(c *conversation) reply {
	if c.jsonMode {
		b, _ := json.Marshal(schemaValue(c.jsonSchema))
		return reply{parts: []part{{text: string(b)}}}
	}
	at := -1
	for i, t := range c.turns {
		if t.role == "user" && hasScript(t.text) {
			at = i
		}
	}
	if at < 0 || len(c.tools) == 0 {
		return reply{parts: []part{{text: sideAnswer}}}
	}
	steps := parseScript(c.turns[at].text)
	n := 0
	for _, t := range c.turns[at+1:] {
		if t.role == "tool" {
			n++
		}
	}
	if n >= len(steps) {
		return reply{parts: []part{{text: "Done."}}}
	}
	st := steps[n]
	rep := answer(c, st)
	if st.waitFor != "" {
		rep.waitFor = resolvePath(c, st.waitFor)
	}
	return rep
}

// answer is the reply of step st.
func answer(c *conversation, st step) reply {
	switch st.op {
	case "error":
		return reply{status: st.status}
	case "hang":
		return reply{hang: true}
	case "text":
		return reply{parts: []part{{text: st.args[0]}}}
	case "write":
		path := resolvePath(c, st.args[0])
		call, err := writeCall(c.tools, path, st.args[1])
		if err != nil {
			return reply{parts: []part{{text: err.Error()}}}
		}
		return reply{parts: []part{{text: "I'll write " + st.args[0] + " now."}, {call: call}}}
	case "call":
		call, err := namedCall(c.tools, st.args[0], withLastID(c, st.args[1]))
		if err != nil {
			return reply{parts: []part{{text: err.Error()}}}
		}
		return reply{parts: []part{{text: "I'll call " + st.args[0] + "."}, {call: call}}}
	default: // shell
		call, err := shellCall(c.tools, st.args[0])
		if err != nil {
			return reply{parts: []part{{text: err.Error()}}}
		}
		return reply{parts: []part{{text: "I'll run `" + st.args[0] + "`."}, {call: call}}}
	}
}

// cwdPatterns find the working directory the CLI tells its model about,
// each CLI in its own words.
var cwdPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?i)working directory:\s*(/[^\s<]*)`),
		regexp.MustCompile(`<cwd>\s*(/[^<\s]*)\s*</cwd>`),
		regexp.MustCompile(`(?i)working in the directory:?\s*(/[^\s]*)`),
		regexp.MustCompile(`(?i)current working directory[^/\n]*(/[^\s]*)`),
	}
})

// resolvePath makes a relative script path absolute against the working
// directory the CLI reported, since some write tools want absolute paths.
func resolvePath(c *conversation, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	all := c.system
	for _, t := range c.turns {
		all += "\n" + t.text
	}
	// The last the CLI said: a resumed session's earlier turns may name
	// the directory it ran in then, on another machine.
	for _, re := range cwdPatterns() {
		if ms := re.FindAllStringSubmatch(all, -1); ms != nil {
			return filepath.Join(strings.TrimRight(ms[len(ms)-1][1], ".,;:'\"`"), p)
		}
	}
	return p
}

// chunks splits text into a few pieces for streaming, as a model does.
func chunks(text string) []string {
	words := strings.SplitAfter(text, " ")
	if len(words) < 3 {
		if len(text) < 2 {
			return []string{text}
		}
		return []string{text[:len(text)/2], text[len(text)/2:]}
	}
	per := (len(words) + 2) / 3
	var out []string
	for i := 0; i < len(words); i += per {
		out = append(out, strings.Join(words[i:min(i+per, len(words))], ""))
	}
	return out
}

// usage is a rough token count for the simulated usage fields.
func usage(body []byte, r reply) (in, out int) {
	in = inputTokens(body)
	for _, p := range r.parts {
		out += len(p.text)/4 + 1
		if p.call != nil {
			out += len(p.call.argsJSON()+p.call.input)/4 + 1
		}
	}
	return in, out
}

func errorText(status int) string {
	return fmt.Sprintf("modelsim: scripted error %d", status)
}

// schemaValue is a plain value that fits a JSON schema: every property of
// an object, the first value of an enum.
func schemaValue(schema map[string]any) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	ty, _ := schema["type"].(string)
	switch strings.ToLower(ty) {
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for name, p := range props {
			ps, _ := p.(map[string]any)
			out[name] = schemaValue(ps)
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	case "string":
		return sideAnswer
	}
	return map[string]any{}
}

// inputTokens is the input count of a request with body.
func inputTokens(body []byte) int { return len(body)/4 + 1 }

// lastIDPattern finds an id in a tool result (an MCP tool's JSON).
var lastIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\\?"id\\?"\s*:\s*\\?"([^"\\]+)\\?"`) })

// withLastID replaces $LAST_ID in a call's arguments with the first id in
// the last tool result, so that a script can use what a call created.
func withLastID(c *conversation, args string) string {
	if !strings.Contains(args, "$LAST_ID") {
		return args
	}
	for i := len(c.turns) - 1; i >= 0; i-- {
		if c.turns[i].role != "tool" {
			continue
		}
		if m := lastIDPattern().FindStringSubmatch(c.turns[i].text); m != nil {
			return strings.ReplaceAll(args, "$LAST_ID", m[1])
		}
		break
	}
	return args
}
