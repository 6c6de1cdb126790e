package policy

import (
	"path/filepath"
	"regexp"
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

// opts describes a command's options: which short letters and long names
// take a value, and whether options may follow operands (GNU style).
type opts struct {
	short   string          // short options with a value (attached or next word)
	long    map[string]bool // long options ("--name") with a value (after = or next word)
	permute bool            // options after operands still count as options
}

// option is one parsed option: its name ("-x" or "--name") and value.
type option struct{ name, value string }

// parseArgs splits args into options and operands. "--" ends the
// options; "-" is an operand.
func parseArgs(args []string, o opts) (flags []option, operands []string) {
	done := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case done || w == "-" || !strings.HasPrefix(w, "-"):
			operands = append(operands, w)
			if !o.permute {
				done = true
			}
		case w == "--":
			done = true
		case strings.HasPrefix(w, "--"):
			name, val, eq := strings.Cut(w, "=")
			op := option{name: name, value: val}
			if !eq && o.long[name] && i+1 < len(args) {
				i++
				op.value = args[i]
			}
			flags = append(flags, op)
		default:
			for j := 1; j < len(w); j++ {
				op := option{name: "-" + w[j:j+1]}
				if strings.IndexByte(o.short, w[j]) >= 0 {
					if j+1 < len(w) {
						op.value = w[j+1:]
					} else if i+1 < len(args) {
						i++
						op.value = args[i]
					}
					flags = append(flags, op)
					break
				}
				flags = append(flags, op)
			}
		}
	}
	return flags, operands
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// pathCommands take paths as operands (§8.2): every operand is a
// candidate, and so are the values of the listed options.
var pathCommands = map[string]struct {
	opts
	pathOpts map[string]bool
}{
	"cat":   {},
	"cd":    {},
	"chdir": {},
	"chmod": {opts{long: set("--reference"), permute: true}, set("--reference")},
	"chown": {opts{long: set("--reference", "--from"), permute: true}, set("--reference")},
	"chgrp": {opts{long: set("--reference"), permute: true}, set("--reference")},
	"cp":    {opts{short: "tS", long: set("--target-directory", "--suffix"), permute: true}, set("-t", "--target-directory")},
	"mv":    {opts{short: "tS", long: set("--target-directory", "--suffix"), permute: true}, set("-t", "--target-directory")},
	"ln":    {opts{short: "tS", long: set("--target-directory", "--suffix"), permute: true}, set("-t", "--target-directory")},
	"head":  {opts{short: "nc", long: set("--lines", "--bytes"), permute: true}, nil},
	"tail":  {opts{short: "ncs", long: set("--lines", "--bytes", "--sleep-interval", "--pid", "--max-unchanged-stats"), permute: true}, nil},
	"less":  {opts{short: "bhjkoOpPtTxyz#", long: set("--log-file", "--LOG-FILE", "--pattern", "--tag", "--tag-file", "--prompt"), permute: true}, set("-o", "-O", "--log-file", "--LOG-FILE", "-T", "--tag-file")},
	"more":  {opts{short: "n", long: set("--lines"), permute: true}, nil},
	"ls":    {opts{short: "ITw", long: set("--ignore", "--hide", "--tabsize", "--width", "--format", "--sort", "--time", "--time-style", "--block-size", "--quoting-style", "--indicator-style"), permute: true}, nil},
	"mkdir": {opts{short: "m", long: set("--mode", "--context"), permute: true}, nil},
	"rm":    {opts{permute: true}, nil},
	"rmdir": {opts{permute: true}, nil},
	"stat":  {opts{short: "c", long: set("--format", "--printf"), permute: true}, nil},
	"touch": {opts{short: "dtr", long: set("--date", "--reference", "--time"), permute: true}, set("-r", "--reference")},
	"wc":    {opts{long: set("--files0-from"), permute: true}, set("--files0-from")},
	"tee":   {opts{permute: true}, nil}, // beyond §8.2's list: tee writes its operands
}

// patternCommands take a pattern (or program) first, then paths: the
// pattern is the first operand unless an option supplied it.
var patternCommands = map[string]struct {
	opts
	patternOpts map[string]bool // options that supply the pattern
	pathOpts    map[string]bool // options whose value is a file read
}{
	"grep": {grepOpts, set("-e", "-f", "--regexp", "--file"), set("-f", "--file", "--exclude-from")},
	"rg": {opts{short: "efgtTABCmjMErd", long: set("--regexp", "--file", "--glob", "--iglob", "--type", "--type-not", "--type-add",
		"--type-clear", "--max-count", "--threads", "--max-columns", "--encoding", "--context", "--after-context", "--before-context",
		"--replace", "--sort", "--sortr", "--max-depth", "--colors", "--color", "--pre", "--pre-glob", "--ignore-file", "--max-filesize",
		"--engine", "--context-separator", "--field-match-separator", "--field-context-separator", "--path-separator",
		"--dfa-size-limit", "--regex-size-limit"), permute: true},
		set("-e", "-f", "--regexp", "--file"), set("-f", "--file", "--ignore-file")},
	"sed": {opts{short: "efl", long: set("--expression", "--file", "--line-length"), permute: true},
		set("-e", "-f", "--expression", "--file"), set("-f", "--file")},
	"awk": {awkOpts, set("-f", "--file"), set("-f", "--file")},
}

var grepOpts = opts{short: "efmABCdD", long: set("--regexp", "--file", "--max-count", "--after-context", "--before-context",
	"--context", "--devices", "--directories", "--label", "--include", "--exclude", "--exclude-dir", "--exclude-from",
	"--binary-files"), permute: true}

var awkOpts = opts{short: "fvF", long: set("--file", "--assign", "--field-separator")}

func init() {
	for _, n := range []string{"egrep", "fgrep"} {
		patternCommands[n] = patternCommands["grep"]
	}
	for _, n := range []string{"gawk", "mawk", "nawk"} {
		patternCommands[n] = patternCommands["awk"]
	}
}

var (
	shells      = set("bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "rbash")
	pythonName  = regexp.MustCompile(`^python(\d+(\.\d+)*)?$`)
	netClients  = set("curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "ftp", "telnet")
	gitNetwork  = set("clone", "fetch", "pull", "push", "ls-remote")
	escalations = set("sudo", "su", "doas", "pkexec")
)

// classify applies the per-command rules to c: path candidates, inline
// scripts, destructive and network use, nested scripts. For a wrapper it
// returns the command it runs.
func (a *analysis) classify(c *call, depth int) []string {
	args := c.argv[1:]
	name := c.name
	if netClients[name] {
		c.network = name
	}
	if escalations[name] {
		c.destructive = name
	}
	if strings.HasPrefix(name, "mkfs") || name == "mount" || name == "umount" || name == "shred" {
		c.destructive = name
	}
	if pc, ok := pathCommands[name]; ok {
		flags, operands := parseArgs(args, pc.opts)
		for _, o := range flags {
			if pc.pathOpts[o.name] {
				a.addPath(o.value)
			}
		}
		for _, p := range operands {
			a.addPath(p)
		}
		switch name {
		case "rm":
			c.destructive = rmDestructive(flags)
		case "chmod", "chown", "chgrp":
			for _, o := range flags {
				if o.name == "-R" || longPrefix(o.name, "--recursive", 5) {
					c.destructive = name + " -R"
				}
			}
		}
		return nil
	}
	if pc, ok := patternCommands[name]; ok {
		flags, operands := parseArgs(args, pc.opts)
		given := false
		for _, o := range flags {
			if pc.patternOpts[o.name] {
				given = true
			}
			if pc.pathOpts[o.name] {
				a.addPath(o.value)
			}
		}
		if !given && len(operands) > 0 {
			operands = operands[1:]
		}
		for _, p := range operands {
			a.addPath(p)
		}
		return nil
	}
	switch {
	case shells[name]:
		a.shell(c, args, depth)
		return nil
	case pythonName.MatchString(name):
		a.python(c, args)
		return nil
	case name == "node" || name == "nodejs":
		a.node(c, args)
		return nil
	case name == "ruby":
		a.interp(c, args, "e", "rICEFx0TWKi", "rICE")
		return nil
	case name == "perl":
		a.interp(c, args, "eE", "IMmxil0CdDV", "I")
		return nil
	}
	switch name {
	case "env":
		return a.env(args, depth)
	case "command", "builtin", "nohup", "busybox", "toybox":
		_, rest := parseArgs(args, opts{})
		return rest
	case "exec":
		_, rest := parseArgs(args, opts{short: "a"})
		return rest
	case "nice":
		_, rest := parseArgs(args, opts{short: "n", long: set("--adjustment")})
		return rest
	case "time":
		flags, rest := parseArgs(args, opts{short: "fo", long: set("--format", "--output")})
		for _, o := range flags {
			if o.name == "-o" || o.name == "--output" {
				a.addPath(o.value)
			}
		}
		return rest
	case "timeout":
		_, rest := parseArgs(args, opts{short: "sk", long: set("--signal", "--kill-after")})
		if len(rest) > 0 {
			rest = rest[1:] // the duration
		}
		return rest
	case "stdbuf":
		_, rest := parseArgs(args, opts{short: "ioe", long: set("--input", "--output", "--error")})
		return rest
	case "setsid":
		_, rest := parseArgs(args, opts{})
		return rest
	case "xargs":
		flags, rest := parseArgs(args, opts{short: "adEILnPs", long: set("--arg-file", "--delimiter", "--max-lines", "--max-args",
			"--max-procs", "--max-chars", "--process-slot-var")})
		for _, o := range flags {
			if o.name == "-a" || o.name == "--arg-file" {
				a.addPath(o.value)
			}
		}
		return rest
	case "sudo", "doas", "pkexec":
		flags, rest := parseArgs(args, opts{short: "ugCDhprtTU", long: set("--user", "--group", "--close-from", "--chdir",
			"--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user")})
		for _, o := range flags {
			if o.name == "-D" || o.name == "--chdir" {
				a.addPath(o.value)
			}
		}
		return rest
	case "find":
		a.find(c, args, depth)
	case "git":
		a.git(c, args)
	case "dd":
		for _, w := range args {
			if strings.HasPrefix(w, "of=") {
				c.destructive = "dd of="
				a.addPath(w[3:])
			} else if strings.HasPrefix(w, "if=") {
				a.addPath(w[3:])
			}
		}
	case "source", ".":
		if len(args) > 0 {
			a.addPath(args[0])
		}
	case "eval":
		a.script(strings.Join(args, " "), depth+1)
	case "trap":
		_, rest := parseArgs(args, opts{})
		if len(rest) > 1 {
			a.script(rest[0], depth+1)
		}
	case "alias":
		for _, w := range args {
			if _, v, ok := strings.Cut(w, "="); ok {
				a.script(v, depth+1)
			}
		}
	}
	return nil
}

// longPrefix reports whether w is an unambiguous GNU abbreviation of the
// long option full, at least min bytes long.
func longPrefix(w, full string, min int) bool {
	return len(w) >= min && strings.HasPrefix(full, w)
}

// rmDestructive reports rm with both recursive and force flags.
func rmDestructive(flags []option) string {
	var r, f bool
	for _, o := range flags {
		switch {
		case o.name == "-r" || o.name == "-R" || longPrefix(o.name, "--recursive", 3):
			r = true
		case o.name == "-f" || longPrefix(o.name, "--force", 3):
			f = true
		}
	}
	if r && f {
		return "rm -rf"
	}
	return ""
}

// env unwraps env: its flags and their values, -C/--chdir directories as
// path candidates, -S/--split-string re-split, NAME=value skipped.
func (a *analysis) env(args []string, depth int) []string {
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

// scriptAfter handles an interpreter's "--": the next word is the script
// (a path argument); with none, the code comes from stdin.
func (a *analysis) scriptAfter(c *call, rest []string) {
	if len(rest) > 0 {
		a.addPath(rest[0])
		return
	}
	a.fedInline(c, 0)
}

// python handles python, python3 and python3.X: -c and - are inline;
// -m runs a module (never inline, even from a heredoc); otherwise the
// first operand is the script.
func (a *analysis) python(c *call, args []string) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "-":
			c.inline = w
			return
		case w == "--":
			a.scriptAfter(c, args[i+1:])
			return
		case strings.HasPrefix(w, "--"):
			if w == "--check-hash-based-pycs" {
				i++
			}
		case strings.HasPrefix(w, "-"):
			for j := 1; j < len(w); j++ {
				switch w[j] {
				case 'c':
					c.inline = w
					return
				case 'm':
					return
				case 'W', 'X', 'Q':
					if j+1 == len(w) {
						i++
					}
					j = len(w)
				}
			}
		default:
			a.addPath(w)
			return
		}
	}
	a.fedInline(c, 0)
}

// node handles node: -e/--eval/-p/--print (or a cluster holding e or p)
// are inline; - reads the script from stdin.
func (a *analysis) node(c *call, args []string) {
	valued := set("--require", "--import", "--loader", "--experimental-loader", "--conditions", "--input-type", "--title",
		"--env-file", "--stack-size", "--inspect-port", "--redirect-warnings", "--icu-data-dir", "--openssl-config")
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "-":
			c.inline = w
			return
		case w == "--":
			a.scriptAfter(c, args[i+1:])
			return
		case strings.HasPrefix(w, "--"):
			name, _, eq := strings.Cut(w, "=")
			if name == "--eval" || name == "--print" {
				c.inline = name
				return
			}
			if !eq && valued[name] {
				i++
			}
		case strings.HasPrefix(w, "-"):
			if strings.ContainsAny(w[1:], "ep") {
				c.inline = w
				return
			}
			if w == "-r" || w == "-C" {
				i++
			}
		default:
			a.addPath(w)
			return
		}
	}
	a.fedInline(c, 0)
}

// interp handles ruby and perl: a short cluster holding one of inline
// (before a letter that takes the rest of the cluster as its value) is
// inline; letters in next may take the following word as their value.
func (a *analysis) interp(c *call, args []string, inline, valued, next string) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "-":
			c.inline = w
			return
		case w == "--":
			a.scriptAfter(c, args[i+1:])
			return
		case strings.HasPrefix(w, "--"):
			// long options take their values after =
		case strings.HasPrefix(w, "-"):
			for j := 1; j < len(w); j++ {
				ch := w[j]
				if strings.IndexByte(inline, ch) >= 0 {
					c.inline = w
					return
				}
				if strings.IndexByte(valued, ch) >= 0 {
					if j+1 == len(w) && strings.IndexByte(next, ch) >= 0 {
						i++
					}
					break
				}
			}
		default:
			a.addPath(w)
			return
		}
	}
	a.fedInline(c, 0)
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
func (a *analysis) git(c *call, args []string) {
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
