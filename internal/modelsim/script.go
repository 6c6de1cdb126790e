package modelsim

import (
	"fmt"
	"strconv"
	"strings"
)

// A step is one line of the script: what the model does on one call.
//
//	@sim write PATH "CONTENT"   a sentence, then the CLI's file-write tool
//	@sim shell "COMMAND"        a sentence, then the CLI's shell tool
//	@sim call TOOL "JSON"       a sentence, then a call of the offered tool named TOOL
//	                            (or ending in _TOOL, .TOOL: an MCP tool as the CLI names it)
//	                            with the JSON object as arguments; $LAST_ID in it is the
//	                            first "id" in the last tool result
//	@sim text "TEXT"            the final answer, streamed in chunks
//	@sim error STATUS           the API answers with that HTTP status
//	@sim hang                   the API never answers (until the client goes)
//	@sim wait PATH              the next step's answer waits until PATH exists (a path
//	                            relative to the CLI's working directory, or absolute)
//
// Quoted arguments are Go string literals, so "a\nb" holds a newline.
type step struct {
	op      string // write, shell, text, error, hang
	args    []string
	status  int    // for error
	waitFor string // a wait before it: the path its answer waits for
}

// scriptMarker starts every script line.
const scriptMarker = "@sim "

// hasScript tells whether text holds a script line.
func hasScript(text string) bool { return parseScript(text) != nil }

// parseScript reads the script lines of text, in order; lines that do not
// start with the marker (after spaces) are prose and ignored. A malformed
// line becomes a text step that says what is wrong, so a test sees it in
// the CLI's answer. A wait is no step of its own (the model takes one per
// tool result): it holds the step after it.
func parseScript(text string) []step {
	var steps []step
	wait := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, scriptMarker) {
			continue
		}
		st, err := parseStep(strings.TrimSpace(line[len(scriptMarker):]))
		if err != nil {
			st = step{op: "text", args: []string{fmt.Sprintf("modelsim: bad script line %q: %v", line, err)}}
		}
		if st.op == "wait" {
			wait = st.args[0]
			continue
		}
		st.waitFor, wait = wait, ""
		steps = append(steps, st)
	}
	if wait != "" {
		steps = append(steps, step{op: "text", args: []string{"modelsim: a wait with no step after it"}})
	}
	return steps
}

func parseStep(line string) (step, error) {
	words, err := splitWords(line)
	if err != nil {
		return step{}, err
	}
	if len(words) == 0 {
		return step{}, fmt.Errorf("no operation")
	}
	st := step{op: words[0], args: words[1:]}
	want := map[string]int{"write": 2, "shell": 1, "call": 2, "text": 1, "error": 1, "hang": 0, "wait": 1}
	n, ok := want[st.op]
	if !ok {
		return step{}, fmt.Errorf("unknown operation %q (want write, shell, call, text, error, hang or wait)", st.op)
	}
	if len(st.args) != n {
		return step{}, fmt.Errorf("%s takes %d argument(s), got %d", st.op, n, len(st.args))
	}
	if st.op == "error" {
		if st.status, err = strconv.Atoi(st.args[0]); err != nil || st.status < 400 || st.status > 599 {
			return step{}, fmt.Errorf("error takes an HTTP status 400-599, got %q", st.args[0])
		}
	}
	return st, nil
}

// splitWords splits on spaces, reading a token that starts with a double
// quote as a Go string literal.
func splitWords(s string) ([]string, error) {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, nil
		}
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("unterminated or bad quoted string at %q", s)
			}
			w, _ := strconv.Unquote(q)
			out = append(out, w)
			s = s[len(q):]
			continue
		}
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
}
