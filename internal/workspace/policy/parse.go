package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Limits on the work done for one command line, so that adversarial
// input (deep nesting, brace bombs) stays cheap.
const (
	maxDepth     = 6    // nested scripts: bash -c, eval, env -S, heredoc bodies
	maxBraceWord = 256  // words one brace expansion may produce
	maxWords     = 1e5  // words analysed in total
	maxCalls     = 1e4  // simple commands analysed in total
	maxText      = 1e6  // bytes of decoded text kept for the network step
	maxSrc       = 1e6  // bytes of nested script re-parsed in total
	maxGlobMatch = 256  // glob matches checked per path candidate
	maxGlobMeta  = 3    // path segments with glob characters we expand
	maxCmdShown  = 2000 // bytes of the normalised command in details
)

// input is where a simple command's standard input comes from.
type input struct {
	kind string // "" (inherited), "<<" (heredoc), "<<<" (here-string), "|" (pipe), "<" (file)
	body string // the heredoc or here-string text
}

// call is one simple command, after unwrapping: env, nohup, xargs and
// the like are calls of their own (wrapper set) followed by the call
// they run.
type call struct {
	argv    []string // decoded words; argv[0] is the command word as written
	name    string   // lower-cased basename of argv[0]
	in      input
	wrapper bool // runs argv's tail as another call

	inline      string // inline-script form found (option word, "<<", "<<<", "|"), if any
	destructive string // what makes it destructive, if anything
	network     string // what makes it a network client, if anything
}

// analysis is everything the steps need from a command line: its simple
// commands in order and the path arguments of step 2, in order.
type analysis struct {
	base   string // absolute directory of relative command words ("" unknown)
	calls  []*call
	paths  []string
	text   strings.Builder // decoded words, for the network step
	nwords int
	src    int
}

// script parses src as a shell script and analyses every simple command
// in it, nested ones included. Unparseable input (unbalanced quotes, …)
// falls back to whitespace splitting: the checks are never skipped.
func (a *analysis) script(src string, depth int) {
	if depth > maxDepth || a.src > maxSrc {
		return
	}
	a.src += len(src)
	f, err := parse(src)
	if err != nil {
		a.fallback(src, depth)
		return
	}
	var stmts []*syntax.Stmt
	var decls []*syntax.DeclClause
	piped := map[*syntax.Stmt]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			stmts = append(stmts, n)
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				piped[n.Y] = true
			}
		case *syntax.DeclClause:
			decls = append(decls, n)
		}
		return true
	})
	for _, d := range decls {
		// export, declare, local, readonly, typeset: command words of
		// the line (they matter to the network step's exception).
		if d.Variant != nil {
			a.addCall(&call{argv: []string{d.Variant.Value}, name: d.Variant.Value})
		}
	}
	for _, s := range stmts {
		a.stmt(s, piped[s], depth)
	}
}

func parse(src string) (*syntax.File, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err == nil {
		return f, nil
	}
	if f, err2 := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(src), ""); err2 == nil {
		return f, nil
	}
	return nil, err
}

// stmt analyses one statement: its redirections (whatever the command)
// and, for a simple command, the command itself.
func (a *analysis) stmt(s *syntax.Stmt, piped bool, depth int) {
	var in input
	if piped {
		in.kind = "|"
	}
	for _, r := range s.Redirs {
		stdin := r.N == nil || r.N.Value == "0"
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if stdin {
				in = input{kind: "<<", body: rawText(r.Hdoc)}
			}
		case syntax.WordHdoc:
			if stdin {
				in = input{kind: "<<<", body: a.word(r.Word)}
			}
		case syntax.DplIn, syntax.DplOut:
			if t := a.word(r.Word); !fdWord(t) {
				a.addPath(t)
			}
		default:
			a.addPath(a.word(r.Word))
			if stdin && (r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut) {
				in = input{kind: "<"}
			}
		}
	}
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return
	}
	a.simple(a.words(ce.Args), in, depth)
}

// fdWord reports whether a >& / <& target is a file descriptor (or the
// close marker "-") rather than a file.
func fdWord(t string) bool {
	if t == "" || t == "-" {
		return true
	}
	t = strings.TrimSuffix(t, "-") // 2>&1- moves the descriptor
	for _, c := range t {
		if c < '0' || c > '9' {
			return false
		}
	}
	return t != ""
}

// addCall records a call, within the budget.
func (a *analysis) addCall(c *call) bool {
	if len(a.calls) >= maxCalls {
		return false
	}
	a.calls = append(a.calls, c)
	return true
}

func (a *analysis) addPath(p string) {
	if p != "" {
		a.paths = append(a.paths, p)
	}
}

// words decodes a command's words as the shell would pass them, brace
// expansion included (bash; a bounded number of alternatives).
func (a *analysis) words(ws []*syntax.Word) []string {
	var out []string
	for _, w := range ws {
		if a.nwords > maxWords {
			break
		}
		cp := *w
		cp.Parts = append([]syntax.WordPart(nil), w.Parts...)
		if !syntax.SplitBraces(&cp) {
			out = append(out, a.word(w))
			continue
		}
		n := 0
		for alt, err := range expand.BracesSeq(nil, &cp) {
			if err != nil || n >= maxBraceWord {
				break
			}
			out = append(out, a.word(alt))
			n++
		}
		if n == 0 {
			out = append(out, a.word(w))
		}
	}
	return out
}

// word decodes one word to the text the command receives, as far as it
// is literal: quotes and escapes are resolved, expansions contribute
// nothing (a word that is not fully literal is judged on its literal
// parts).
func (a *analysis) word(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	decodeParts(&b, w.Parts, false)
	s := b.String()
	a.nwords++
	if a.text.Len() < maxText {
		a.text.WriteString(s)
		a.text.WriteByte(' ')
	}
	return s
}

func decodeParts(b *strings.Builder, parts []syntax.WordPart, dq bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			unescape(b, p.Value, dq)
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			decodeParts(b, p.Parts, true)
		case *syntax.ExtGlob:
			b.WriteString(p.Op.String())
			if p.Pattern != nil {
				b.WriteString(p.Pattern.Value)
			}
			b.WriteByte(')')
		case *syntax.BraceExp:
			b.WriteByte('{')
			sep := ","
			if p.Sequence {
				sep = ".."
			}
			for i, e := range p.Elems {
				if i > 0 {
					b.WriteString(sep)
				}
				decodeParts(b, e.Parts, dq)
			}
			b.WriteByte('}')
		}
		// ParamExp, CmdSubst, ArithmExp, ProcSubst: not literal.
	}
}

// unescape resolves backslashes: outside double quotes any character
// may be escaped; inside them only $ ` " \ (and newline).
func unescape(b *strings.Builder, s string, dq bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == '\n':
			i++
		case !dq || strings.IndexByte("$`\"\\", n) >= 0:
			b.WriteByte(n)
			i++
		default:
			b.WriteByte(c)
		}
	}
}

// ansiC decodes the body of a bash $'…' string.
func ansiC(v string) string {
	w := &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Dollar: true, Value: v}}}
	s, err := expand.Literal(&expand.Config{}, w)
	if err != nil {
		return v
	}
	return s
}

// rawText is the literal text of a heredoc body (expansions dropped).
func rawText(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(l.Value)
		}
	}
	return b.String()
}

// fallback analyses a line the parser refused (unbalanced quotes, …) by
// whitespace splitting: commands end at ; & | ( ) and newlines, quote
// characters and backslashes are dropped, redirections are recognised.
func (a *analysis) fallback(src string, depth int) {
	var segs []string
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		sep := false
		switch c {
		case ';', '(', ')', '\n', '`':
			sep = true
		case '&':
			// not in 2>&1, &>, >&
			sep = !(i > 0 && (src[i-1] == '>' || src[i-1] == '<')) && !(i+1 < len(src) && src[i+1] == '>')
		case '|':
			sep = !(i > 0 && src[i-1] == '>')
		}
		if sep {
			segs = append(segs, src[start:i])
			start = i + 1
		}
	}
	segs = append(segs, src[start:])
	for _, seg := range segs {
		var argv []string
		var in input
		toks := strings.Fields(seg)
		for i := 0; i < len(toks); i++ {
			t := strings.Map(func(r rune) rune {
				if r == '\'' || r == '"' || r == '\\' {
					return -1
				}
				return r
			}, toks[i])
			if a.text.Len() < maxText {
				a.text.WriteString(t)
				a.text.WriteByte(' ')
			}
			op, rest, ok := redirOp(t)
			if !ok {
				argv = append(argv, t)
				continue
			}
			if rest == "" && i+1 < len(toks) && op != "" {
				i++
				rest = strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(toks[i])
			}
			switch op {
			case "<<", "<<-":
				in.kind = "<<"
			case "<<<":
				in = input{kind: "<<<", body: rest}
			case ">&", "<&":
				if !fdWord(rest) {
					a.addPath(rest)
				}
			default:
				a.addPath(rest)
			}
		}
		for len(argv) > 0 && isAssignment(argv[0]) {
			argv = argv[1:]
		}
		if len(argv) > 0 {
			a.simple(argv, in, depth)
		}
	}
}

// redirOp splits a fallback token into a redirection operator (with an
// optional fd number before it) and its attached target.
func redirOp(t string) (op, rest string, ok bool) {
	s := strings.TrimLeft(t, "0123456789")
	for _, o := range []string{"&>>", "&>", "<<<", "<<-", "<<", ">>", ">&", "<&", ">|", "<>", ">", "<"} {
		if strings.HasPrefix(s, o) {
			return o, s[len(o):], true
		}
	}
	return "", "", false
}

// isAssignment reports whether a word is NAME=value.
func isAssignment(w string) bool {
	i := strings.IndexByte(w, '=')
	if i <= 0 {
		return false
	}
	for j, c := range w[:i] {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// cmdName is the lower-cased basename of a command word.
func cmdName(w string) string {
	return strings.ToLower(path.Base(strings.ReplaceAll(w, `\`, "/")))
}

// splitQuoted splits a string into words as env -S does: whitespace
// separates, single and double quotes group, backslash escapes. An
// unbalanced quote runs to the end.
func splitQuoted(s string) []string {
	var out []string
	var b strings.Builder
	in := false
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q == '\'':
			if c == '\'' {
				q = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case '_':
				if q == 0 {
					out = append(out, b.String())
					b.Reset()
					in = false
					continue
				}
				b.WriteByte(' ')
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'c':
				i = len(s)
			default:
				b.WriteByte(s[i])
			}
			in = true
		case q == '"':
			if c == '"' {
				q = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			q = c
			in = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}
