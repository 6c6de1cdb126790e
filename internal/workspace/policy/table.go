package policy

import (
	"regexp"
	"strings"
	"sync"
)

// The rules by command name (lower-cased basename). A name no rule
// names runs no command of its own and has no path operands the policy
// knows of; its words still count for the network step's mentions.
var rules map[string]rule

// families are the rules of names that follow a pattern, tried after
// the names of rules; each has a key that stands for it in the tests.
var families []family

type family struct {
	key   string
	match func(name string) bool
	rule  rule
}

// The tables are filled in init because the analysers they name consult
// them in turn (a nested script is classified too), a loop that a
// variable's initializer may not contain.
func init() {
	rules = buildRules()
	families = []family{
		{"mkfs*", func(n string) bool { return strings.HasPrefix(n, "mkfs") }, rule{destructive: true}},
		{"python*", func(n string) bool { return pythonName().MatchString(n) }, rule{analyse: only((*analysis).python)}},
	}
}

// pythonName matches python, python3, python3.12 and the like; compiled
// on first use, as every package-level regexp here, so that a process
// that never classifies a command does not pay for it at start.
var pythonName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^python(\d+(\.\d+)*)?$`) })

// lookup is the rule of a command name and its key in the table.
func lookup(name string) (key string, r rule, ok bool) {
	if r, ok := rules[name]; ok {
		return name, r, true
	}
	for _, f := range families {
		if f.match(name) {
			return f.key, f.rule, true
		}
	}
	return "", rule{}, false
}

var (
	shells     = set("bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "rbash")
	gitNetwork = set("clone", "fetch", "pull", "push", "ls-remote")
)

func buildRules() map[string]rule {
	t := map[string]rule{}
	add := func(r rule, names ...string) {
		for _, n := range names {
			t[n] = r
		}
	}

	// Commands that take paths as operands
	// (docs/coding-tools.md#classification): every operand is a candidate, and
	// so are the values of the options listed after opts.
	add(pathArgs(opts{}), "cat", "cd", "chdir")
	add(recursive(pathArgs(opts{long: set("--reference"), permute: true}, "--reference")), "chmod", "chgrp")
	add(recursive(pathArgs(opts{long: set("--reference", "--from"), permute: true}, "--reference")), "chown")
	add(pathArgs(opts{short: "tS", long: set("--target-directory", "--suffix"), permute: true}, "-t", "--target-directory"), "cp", "mv", "ln")
	add(pathArgs(opts{short: "nc", long: set("--lines", "--bytes"), permute: true}), "head")
	add(pathArgs(opts{short: "ncs", long: set("--lines", "--bytes", "--sleep-interval", "--pid", "--max-unchanged-stats"), permute: true}), "tail")
	add(pathArgs(opts{short: "bhjkoOpPtTxyz#", long: set("--log-file", "--LOG-FILE", "--pattern", "--tag", "--tag-file", "--prompt"), permute: true},
		"-o", "-O", "--log-file", "--LOG-FILE", "-T", "--tag-file"), "less")
	add(pathArgs(opts{short: "n", long: set("--lines"), permute: true}), "more")
	add(pathArgs(opts{short: "ITw", long: set("--ignore", "--hide", "--tabsize", "--width", "--format", "--sort", "--time", "--time-style",
		"--block-size", "--quoting-style", "--indicator-style"), permute: true}), "ls")
	add(pathArgs(opts{short: "m", long: set("--mode", "--context"), permute: true}), "mkdir")
	add(pathArgs(opts{permute: true}), "rmdir", "tee") // tee, beyond the list in docs/coding-tools.md#classification, writes its operands
	add(rule{opts: opts{permute: true}, operands: operandsPaths, destructiveFlags: rmDestructive}, "rm")
	add(pathArgs(opts{short: "c", long: set("--format", "--printf"), permute: true}), "stat")
	add(pathArgs(opts{short: "dtr", long: set("--date", "--reference", "--time"), permute: true}, "-r", "--reference"), "touch")
	add(pathArgs(opts{long: set("--files0-from"), permute: true}, "--files0-from"), "wc")

	// Commands that take a pattern (or program) first, then paths.
	add(patternArgs(opts{short: "efmABCdD", long: set("--regexp", "--file", "--max-count", "--after-context", "--before-context",
		"--context", "--devices", "--directories", "--label", "--include", "--exclude", "--exclude-dir", "--exclude-from",
		"--binary-files"), permute: true}, set("-e", "-f", "--regexp", "--file"), "-f", "--file", "--exclude-from"),
		"grep", "egrep", "fgrep")
	add(patternArgs(opts{short: "efgtTABCmjMErd", long: set("--regexp", "--file", "--glob", "--iglob", "--type", "--type-not", "--type-add",
		"--type-clear", "--max-count", "--threads", "--max-columns", "--encoding", "--context", "--after-context", "--before-context",
		"--replace", "--sort", "--sortr", "--max-depth", "--colors", "--color", "--pre", "--pre-glob", "--ignore-file", "--max-filesize",
		"--engine", "--context-separator", "--field-match-separator", "--field-context-separator", "--path-separator",
		"--dfa-size-limit", "--regex-size-limit"), permute: true}, set("-e", "-f", "--regexp", "--file"), "-f", "--file", "--ignore-file"),
		"rg")
	add(patternArgs(opts{short: "efl", long: set("--expression", "--file", "--line-length"), permute: true},
		set("-e", "-f", "--expression", "--file"), "-f", "--file"), "sed")
	add(patternArgs(opts{short: "fvF", long: set("--file", "--assign", "--field-separator")}, set("-f", "--file"), "-f", "--file"),
		"awk", "gawk", "mawk", "nawk")

	// Network clients, and commands destructive by their name alone.
	add(rule{network: true}, "curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "ftp", "telnet")
	add(rule{destructive: true}, "su", "mount", "umount", "shred")

	// Wrappers: their operands are the command they run.
	add(wraps(opts{}), "command", "builtin", "nohup", "busybox", "toybox", "setsid")
	add(wraps(opts{short: "a"}), "exec")
	add(wraps(opts{short: "n", long: set("--adjustment")}), "nice")
	add(wraps(opts{short: "fo", long: set("--format", "--output")}, "-o", "--output"), "time")
	timeout := wraps(opts{short: "sk", long: set("--signal", "--kill-after")})
	timeout.skip = 1 // the duration
	add(timeout, "timeout")
	add(wraps(opts{short: "ioe", long: set("--input", "--output", "--error")}), "stdbuf")
	add(wraps(opts{short: "adEILnPs", long: set("--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars",
		"--process-slot-var")}, "-a", "--arg-file"), "xargs")
	escalate := wraps(opts{short: "ugCDhprtTU", long: set("--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role",
		"--type", "--command-timeout", "--other-user")}, "-D", "--chdir")
	escalate.destructive = true
	add(escalate, "sudo", "doas", "pkexec")

	// Commands with a grammar of their own.
	for n := range shells {
		add(rule{analyse: only((*analysis).shell)}, n)
	}
	add(rule{analyse: only((*analysis).node)}, "node", "nodejs")
	add(rule{analyse: only(interpreter("e", "rICEFx0TWKi", "rICE"))}, "ruby")
	add(rule{analyse: only(interpreter("eE", "IMmxil0CdDV", "I"))}, "perl")
	add(rule{analyse: (*analysis).env}, "env")
	add(rule{analyse: only((*analysis).find)}, "find")
	add(rule{analyse: only((*analysis).git)}, "git")
	add(rule{analyse: only((*analysis).dd)}, "dd")
	add(rule{analyse: only((*analysis).source)}, "source", ".")
	add(rule{analyse: only((*analysis).eval)}, "eval")
	add(rule{analyse: only((*analysis).trap)}, "trap")
	add(rule{analyse: only((*analysis).alias)}, "alias")
	return t
}

// pathArgs is the rule of a command whose operands, and the values of
// pathOpts, are paths.
func pathArgs(o opts, pathOpts ...string) rule {
	return rule{opts: o, operands: operandsPaths, pathOpts: set(pathOpts...)}
}

// patternArgs is the rule of a command that takes a pattern, given as
// its first operand or by one of patternOpts, then paths.
func patternArgs(o opts, patternOpts map[string]bool, pathOpts ...string) rule {
	return rule{opts: o, operands: operandsPattern, patternOpts: patternOpts, pathOpts: set(pathOpts...)}
}

// wraps is the rule of a command that runs its operands as a command.
func wraps(o opts, pathOpts ...string) rule {
	return rule{opts: o, operands: operandsCommand, pathOpts: set(pathOpts...)}
}

// recursive makes r destructive with -R or --recursive (chmod and kin).
func recursive(r rule) rule {
	r.destructiveFlags = func(name string, flags []option) string {
		for _, o := range flags {
			if o.name == "-R" || longPrefix(o.name, "--recursive", 5) {
				return name + " -R"
			}
		}
		return ""
	}
	return r
}

// rmDestructive reports rm with both recursive and force flags.
func rmDestructive(_ string, flags []option) string {
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
