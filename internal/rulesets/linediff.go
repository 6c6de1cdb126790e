package rulesets

import (
	"fmt"
	"strings"
)

// maxDiffCells bounds the table of the line diff: texts whose lines
// multiply past it (after their common head and tail) are shown as one
// replacement instead of costing quadratic memory.
const maxDiffCells = 4 << 20

// diffContext is how many unchanged lines surround a change.
const diffContext = 3

// UnifiedDiff is the line diff of a and b in the unified format, with
// fromName and toName in its header; "" when they are equal.
func UnifiedDiff(fromName, toName, a, b string) string {
	if a == b {
		return ""
	}
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	ops := diffLines(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", fromName, toName)
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-diffContext)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(run, end+diffContext)
				break
			}
			end = run
		}
		hunk := ops[start:end]
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", hunk[0].x+1, count(hunk, '+'), hunk[0].y+1, count(hunk, '-'))
		for _, o := range hunk {
			out.WriteString(string(o.kind) + o.line + "\n")
		}
		i = end
	}
	return out.String()
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
	x, y int // the line's index in a and in b (of the next line for an insert or delete)
}

// count is how many lines of the hunk are on one side: all but those of
// the other side's kind.
func count(hunk []diffOp, other byte) int {
	n := 0
	for _, o := range hunk {
		if o.kind != other {
			n++
		}
	}
	return n
}

// diffLines is a longest-common-subsequence diff of two line lists.
func diffLines(x, y []string) []diffOp {
	var ops []diffOp
	head := 0
	for head < len(x) && head < len(y) && x[head] == y[head] {
		ops = append(ops, diffOp{' ', x[head], head, head})
		head++
	}
	tail := 0
	for tail < len(x)-head && tail < len(y)-head && x[len(x)-1-tail] == y[len(y)-1-tail] {
		tail++
	}
	mx, my := x[head:len(x)-tail], y[head:len(y)-tail]
	if len(mx)*len(my) > maxDiffCells {
		for i, l := range mx {
			ops = append(ops, diffOp{'-', l, head + i, head})
		}
		for j, l := range my {
			ops = append(ops, diffOp{'+', l, head + len(mx), head + j})
		}
	} else {
		// lcs[i][j] is the length of the common subsequence of mx[i:] and my[j:].
		lcs := make([][]int32, len(mx)+1)
		for i := range lcs {
			lcs[i] = make([]int32, len(my)+1)
		}
		for i := len(mx) - 1; i >= 0; i-- {
			for j := len(my) - 1; j >= 0; j-- {
				if mx[i] == my[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(mx) || j < len(my) {
			switch {
			case i < len(mx) && j < len(my) && mx[i] == my[j]:
				ops = append(ops, diffOp{' ', mx[i], head + i, head + j})
				i, j = i+1, j+1
			case i < len(mx) && (j == len(my) || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, diffOp{'-', mx[i], head + i, head + j})
				i++
			default:
				ops = append(ops, diffOp{'+', my[j], head + i, head + j})
				j++
			}
		}
	}
	for k := tail; k > 0; k-- {
		ops = append(ops, diffOp{' ', x[len(x)-k], len(x) - k, len(y) - k})
	}
	return ops
}
