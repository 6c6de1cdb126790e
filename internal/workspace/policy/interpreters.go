package policy

import "strings"

// shell handles bash, sh, zsh and kin: an inline -c script (re-parsed so
// that steps 1–2 see inside it), a heredoc/here-string/pipe-fed script,
// or a script file (a path candidate).
func (a *analysis) shell(c *call, args []string, depth int) {
	inlineLetters := "c"
	if c.name == "fish" {
		inlineLetters = "cC" // fish -C/--init-command runs code too
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "--" || w == "-":
			if i+1 < len(args) {
				a.addPath(args[i+1])
				return
			}
			a.fedInline(c, depth)
			return
		case strings.HasPrefix(w, "--"):
			name, val, eq := strings.Cut(w, "=")
			switch name {
			case "--rcfile", "--init-file":
				if !eq {
					i++
				}
			case "--command", "--init-command":
				c.inline = name
				if !eq && i+1 < len(args) {
					val = args[i+1]
				}
				a.script(val, depth+1)
				return
			}
		case strings.HasPrefix(w, "-") || strings.HasPrefix(w, "+"):
			if w[0] == '-' && strings.ContainsAny(w[1:], inlineLetters) {
				c.inline = w
				// the script is the first operand after the options
				for j := i + 1; j < len(args); j++ {
					if !strings.HasPrefix(args[j], "-") && !strings.HasPrefix(args[j], "+") {
						a.script(args[j], depth+1)
						break
					}
				}
				return
			}
			if w[0] == '-' && strings.Contains(w[1:], "s") {
				a.fedInline(c, depth) // -s: commands from standard input
				return
			}
			for _, ch := range w[1:] {
				if ch == 'o' || ch == 'O' {
					i++ // the option name
				}
			}
		default:
			a.addPath(w)
			return
		}
	}
	a.fedInline(c, depth)
}

// verdict is what one option word of an interpreter means.
type verdict struct {
	inline string // the code is inline, in this form (the option as shown)
	done   bool   // no script follows (python -m runs a module)
	skip   int    // following words that are the option's value
}

// interpreted walks the arguments of python, node, ruby or perl, which
// share a shape: "-" reads the code from standard input (inline), "--"
// ends the options before the script, the first operand is the script (a
// path candidate), and with none the code comes from standard input.
// option judges each option word.
func (a *analysis) interpreted(c *call, args []string, option func(w string) verdict) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "-":
			c.inline = w
			return
		case w == "--":
			if i+1 < len(args) {
				a.addPath(args[i+1])
				return
			}
			a.fedInline(c, 0)
			return
		case strings.HasPrefix(w, "-"):
			v := option(w)
			if v.inline != "" {
				c.inline = v.inline
				return
			}
			if v.done {
				return
			}
			i += v.skip
		default:
			a.addPath(w)
			return
		}
	}
	a.fedInline(c, 0)
}

// python handles python, python3 and python3.X: -c is inline; -m runs a
// module (never inline, even from a heredoc).
func (a *analysis) python(c *call, args []string, _ int) {
	a.interpreted(c, args, func(w string) verdict {
		if strings.HasPrefix(w, "--") {
			if w == "--check-hash-based-pycs" {
				return verdict{skip: 1}
			}
			return verdict{}
		}
		for j := 1; j < len(w); j++ {
			switch w[j] {
			case 'c':
				return verdict{inline: w}
			case 'm':
				return verdict{done: true}
			case 'W', 'X', 'Q':
				if j+1 == len(w) {
					return verdict{skip: 1}
				}
				return verdict{}
			}
		}
		return verdict{}
	})
}

// nodeValued are node's long options that take the next word as their
// value.
var nodeValued = set("--require", "--import", "--loader", "--experimental-loader", "--conditions", "--input-type", "--title",
	"--env-file", "--stack-size", "--inspect-port", "--redirect-warnings", "--icu-data-dir", "--openssl-config")

// node handles node: -e/--eval/-p/--print (or a cluster holding e or p)
// are inline.
func (a *analysis) node(c *call, args []string, _ int) {
	a.interpreted(c, args, func(w string) verdict {
		if strings.HasPrefix(w, "--") {
			name, _, eq := strings.Cut(w, "=")
			switch {
			case name == "--eval" || name == "--print":
				return verdict{inline: name}
			case !eq && nodeValued[name]:
				return verdict{skip: 1}
			}
			return verdict{}
		}
		switch {
		case strings.ContainsAny(w[1:], "ep"):
			return verdict{inline: w}
		case w == "-r" || w == "-C":
			return verdict{skip: 1}
		}
		return verdict{}
	})
}

// interpreter is the analyser of ruby or perl: a short cluster holding
// one of inline (before a letter of valued, which takes the rest of the
// cluster as its value) is inline; a letter of next that ends its cluster
// takes the following word. Long options take their values after =.
func interpreter(inline, valued, next string) func(a *analysis, c *call, args []string, depth int) {
	option := func(w string) verdict {
		if strings.HasPrefix(w, "--") {
			return verdict{}
		}
		for j := 1; j < len(w); j++ {
			ch := w[j]
			if strings.IndexByte(inline, ch) >= 0 {
				return verdict{inline: w}
			}
			if strings.IndexByte(valued, ch) >= 0 {
				if j+1 == len(w) && strings.IndexByte(next, ch) >= 0 {
					return verdict{skip: 1}
				}
				return verdict{}
			}
		}
		return verdict{}
	}
	return func(a *analysis, c *call, args []string, _ int) { a.interpreted(c, args, option) }
}

// fedInline marks an interpreter with no script argument whose standard
// input is a heredoc, here-string or pipe: the code is inline. A shell's
// heredoc or here-string script is analysed too.
func (a *analysis) fedInline(c *call, depth int) {
	switch c.in.kind {
	case "<<", "<<<", "|":
		c.inline = c.in.kind
		if shells[c.name] && c.in.body != "" {
			a.script(c.in.body, depth+1)
		}
	}
}
