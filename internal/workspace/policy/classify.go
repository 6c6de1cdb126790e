package policy

import (
	"path/filepath"
	"strings"
)

// simple analyses one simple command (leading assignments already
// skipped): wrappers are unwrapped into the call they run.
func (a *analysis) simple(argv []string, in input, depth int) {
	for len(argv) > 0 {
		argv = a.globCommand(argv)
		c := &call{argv: argv, name: cmdName(argv[0]), in: in}
		if !a.addCall(c) {
			return
		}
		inner := a.classify(c, depth)
		if inner == nil {
			return
		}
		c.wrapper = true
		argv = inner
	}
}

// globCommand expands a command word holding glob characters as the
// shell would (/bin/r? is /bin/rm): the matches, in order, replace it.
func (a *analysis) globCommand(argv []string) []string {
	w := argv[0]
	if !strings.ContainsAny(w, "*?[") || strings.Count(w, "/") > 8 {
		return argv
	}
	pattern := w
	if !filepath.IsAbs(w) {
		if a.base == "" {
			return argv
		}
		pattern = filepath.Join(a.base, w)
	}
	matches, err := filepath.Glob(pattern)
	if err != nil || len(matches) == 0 {
		return argv
	}
	if len(matches) > maxGlobMatch {
		matches = matches[:maxGlobMatch]
	}
	return append(matches, argv[1:]...)
}

// A rule says what the words of one command mean to the policy: which
// are path candidates (step 2), what makes it destructive (step 6) or a
// network client (step 7) and, for a wrapper (env, nohup, xargs, sudo…),
// which words are the command it runs. The rules are data (table.go);
// commands with a grammar of their own (shells, interpreters, find, git…)
// name an analyser instead of options and operands.
type rule struct {
	opts        opts            // how its options parse
	operands    operandRole     // what its operands are
	skip        int             // operands before the command it runs (timeout's duration)
	pathOpts    map[string]bool // options whose value is a path candidate
	patternOpts map[string]bool // options that supply the pattern, so that no operand is it

	network     bool // a network client whatever its arguments
	destructive bool // destructive whatever its arguments
	// destructiveFlags says what among its options makes it destructive
	// ("" when nothing does).
	destructiveFlags func(name string, flags []option) string
	// analyse reads its arguments in its own grammar, and returns the
	// command it runs, if it runs one.
	analyse analyser
}

// operandRole is what a command's operands are to the policy.
type operandRole int

const (
	operandsIgnored operandRole = iota // nothing the policy looks at
	operandsPaths                      // every operand is a path candidate
	operandsPattern                    // a pattern or program first (unless an option gave it), then paths
	operandsCommand                    // the command it runs (after skip operands)
)

type analyser func(a *analysis, c *call, args []string, depth int) []string

// only is the analyser of a command that runs no command of its own.
func only(f func(a *analysis, c *call, args []string, depth int)) analyser {
	return func(a *analysis, c *call, args []string, depth int) []string {
		f(a, c, args, depth)
		return nil
	}
}

// classify applies c's rule: path candidates, inline scripts,
// destructive and network use, nested scripts. For a wrapper it returns
// the command it runs.
func (a *analysis) classify(c *call, depth int) []string {
	_, r, ok := lookup(c.name)
	if !ok {
		return nil
	}
	if r.network {
		c.network = c.name
	}
	if r.destructive {
		c.destructive = c.name
	}
	args := c.argv[1:]
	if r.analyse != nil {
		return r.analyse(a, c, args, depth)
	}
	return a.apply(r, c, args)
}

// apply reads args by r's options and operands.
func (a *analysis) apply(r rule, c *call, args []string) []string {
	flags, operands := parseArgs(args, r.opts)
	given := false
	for _, o := range flags {
		given = given || r.patternOpts[o.name]
		if r.pathOpts[o.name] {
			a.addPath(o.value)
		}
	}
	if r.destructiveFlags != nil {
		if d := r.destructiveFlags(c.name, flags); d != "" {
			c.destructive = d
		}
	}
	switch r.operands {
	case operandsCommand:
		return operands[min(r.skip, len(operands)):]
	case operandsPattern:
		if !given && len(operands) > 0 {
			operands = operands[1:]
		}
	case operandsIgnored:
		return nil
	}
	for _, p := range operands {
		a.addPath(p)
	}
	return nil
}
