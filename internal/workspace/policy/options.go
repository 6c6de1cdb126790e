package policy

import "strings"

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

// longPrefix reports whether w is an unambiguous GNU abbreviation of the
// long option full, at least min bytes long.
func longPrefix(w, full string, min int) bool {
	return len(w) >= min && strings.HasPrefix(full, w)
}
