package policy

import "strings"

// env unwraps env: its flags and their values, -C/--chdir directories as
// path candidates, -S/--split-string re-split, NAME=value skipped.
func (a *analysis) env(_ *call, args []string, depth int) []string {
	splits := depth
	// split inserts the words of an -S string after position i, where
	// option parsing goes on (a bounded number of times).
	split := func(i int, val string) {
		if splits++; splits <= maxDepth {
			args = append(append(append([]string(nil), args[:i+1]...), splitQuoted(val)...), args[i+1:]...)
		}
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case w == "--":
			args = args[i+1:]
			for len(args) > 0 && isAssignment(args[0]) {
				args = args[1:]
			}
			return args
		case w == "-":
			continue // same as -i
		case strings.HasPrefix(w, "--"):
			name, val, eq := strings.Cut(w, "=")
			switch {
			case longPrefix(name, "--chdir", 3):
				if !eq {
					val = next()
				}
				a.addPath(val)
			case longPrefix(name, "--split-string", 3):
				if !eq {
					val = next()
				}
				split(i, val)
			case longPrefix(name, "--unset", 3):
				if !eq {
					next()
				}
			}
			// other long options (--ignore-environment, --null, --debug,
			// --ignore-signal[=…], --default-signal[=…], …) take no
			// separate value
		case strings.HasPrefix(w, "-"):
			for j := 1; j < len(w); j++ {
				ch := w[j]
				if strings.IndexByte("uCSP", ch) < 0 {
					continue // -i -0 -v and other flags
				}
				val := w[j+1:]
				if val == "" {
					val = next()
				}
				switch ch {
				case 'C':
					a.addPath(val)
				case 'S':
					split(i, val)
				}
				break
			}
		case isAssignment(w):
			continue
		default:
			return args[i:]
		}
	}
	return nil
}

// find: the leading start points are path candidates, -delete is
// destructive, -exec/-execdir/-ok/-okdir run commands, -fprint… write
// files.
func (a *analysis) find(c *call, args []string, depth int) {
	i := 0
	for i < len(args) {
		w := args[i]
		if w == "-H" || w == "-L" || w == "-P" || strings.HasPrefix(w, "-O") {
			i++
			continue
		}
		if w == "-D" {
			i += 2
			continue
		}
		break
	}
	if i < len(args) && args[i] == "--" {
		i++
	}
	for ; i < len(args); i++ {
		w := args[i]
		if strings.HasPrefix(w, "-") || w == "!" || w == "(" || w == ")" || w == "," {
			break
		}
		a.addPath(w)
	}
	for ; i < len(args); i++ {
		switch args[i] {
		case "-delete":
			c.destructive = "find -delete"
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if i+1 < len(args) {
				a.addPath(args[i+1])
				i++
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			if j > i+1 {
				a.simple(args[i+1:j], input{}, depth)
			}
			i = j
		}
	}
}

// git: global options (-C and kin, whose directories are path
// candidates) come before the subcommand; reset --hard and clean -f/-x
// are destructive; clone, fetch, pull, push and ls-remote are network.
func (a *analysis) git(c *call, args []string, _ int) {
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		if !strings.HasPrefix(w, "-") {
			break
		}
		name, val, eq := strings.Cut(w, "=")
		switch name {
		case "-C", "--git-dir", "--work-tree":
			if !eq {
				if i+1 < len(args) {
					i++
					val = args[i]
				}
			}
			a.addPath(val)
		case "-c", "--namespace", "--super-prefix", "--config-env", "--list-cmds", "--attr-source":
			if !eq {
				i++
			}
		}
	}
	if i >= len(args) {
		return
	}
	sub, rest := strings.ToLower(args[i]), args[i+1:]
	if gitNetwork[sub] {
		c.network = "git " + sub
	}
	switch sub {
	case "reset":
		for _, w := range rest {
			if w == "--" {
				break
			}
			if w == "--hard" {
				c.destructive = "git reset --hard"
			}
		}
	case "clean":
		for _, w := range rest {
			if w == "--" {
				break
			}
			if w == "--force" || (len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.ContainsAny(w[1:], "fx")) {
				c.destructive = "git clean " + w
			}
		}
	}
}

// dd: of= is a destructive write, and if= and of= name paths.
func (a *analysis) dd(c *call, args []string, _ int) {
	for _, w := range args {
		if strings.HasPrefix(w, "of=") {
			c.destructive = "dd of="
			a.addPath(w[3:])
		} else if strings.HasPrefix(w, "if=") {
			a.addPath(w[3:])
		}
	}
}

// source (and .) reads the script its first word names.
func (a *analysis) source(_ *call, args []string, _ int) {
	if len(args) > 0 {
		a.addPath(args[0])
	}
}

// eval runs its words as a script.
func (a *analysis) eval(_ *call, args []string, depth int) {
	a.script(strings.Join(args, " "), depth+1)
}

// trap runs its first operand, when a signal follows it.
func (a *analysis) trap(_ *call, args []string, depth int) {
	_, rest := parseArgs(args, opts{})
	if len(rest) > 1 {
		a.script(rest[0], depth+1)
	}
}

// alias defines commands: each NAME=value's value is a script.
func (a *analysis) alias(_ *call, args []string, depth int) {
	for _, w := range args {
		if _, v, ok := strings.Cut(w, "="); ok {
			a.script(v, depth+1)
		}
	}
}
