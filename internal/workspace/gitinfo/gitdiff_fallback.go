package gitinfo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/sudocode/sudocode/internal/workspace"
)

// The diff outside a git work tree: the first-seen content of the files
// this server changed (apply_patch records it) against what they hold
// now, in git's unified format.

// fallbackMaxFile is the largest current file diffed line by line; a
// bigger one is reported like a binary file. A variable for tests.
var fallbackMaxFile int64 = 32 << 20

// fallbackDiff appends the diff text to text and returns the files.
func fallbackDiff(r *workspace.Root, o DiffOptions, specs []string, text *diffText) ([]DiffFile, []string) {
	var warnings []string
	paths := make([]string, 0, len(o.Originals))
	orig := map[string]*string{}
	for p, v := range o.Originals {
		clean, err := workspace.Lexical(p)
		if err != nil || clean == "." {
			continue
		}
		if _, dup := orig[clean]; !dup {
			paths = append(paths, clean)
		}
		orig[clean] = v
	}
	sort.Strings(paths)
	var files []DiffFile
	for _, p := range paths {
		if !matchesSpecs(p, specs) {
			continue
		}
		cur, err := fallbackCurrent(r, p, orig[p])
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		old := orig[p]
		if old == nil && !cur.exists || old != nil && cur.exists && cur.same {
			continue
		}
		f := DiffFile{Path: p, Status: "modified"}
		switch {
		case old == nil:
			f.Status = "added"
		case !cur.exists:
			f.Status = "deleted"
		}
		var a string
		if old != nil {
			a = *old
		}
		b := string(cur.content)
		f.Binary = cur.large || looksBinary(a) || looksBinary(b)
		files = append(files, f)
		if text.full() {
			text.cut = true
			continue
		}
		text.append(fileDiff(f, cur.mode, a, b, o.ContextLines))
	}
	return files, warnings
}

// matchesSpecs reports whether p is one of the filters or lies below one.
func matchesSpecs(p string, specs []string) bool {
	if len(specs) == 0 {
		return true
	}
	for _, s := range specs {
		if p == s || strings.HasPrefix(p, s+"/") {
			return true
		}
	}
	return false
}

// current is a file's content now.
type current struct {
	exists  bool   // a regular file is there
	content []byte // unless large
	large   bool   // bigger than fallbackMaxFile: compared, not read whole
	same    bool   // equal to the original
	mode    string
}

// fallbackCurrent looks at the file now: absent (or no longer a regular
// file) is !exists.
func fallbackCurrent(r *workspace.Root, p string, orig *string) (current, error) {
	fi, err := r.FS.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return current{}, nil
		}
		return current{}, errors.New("cannot inspect the file")
	}
	if !fi.Mode().IsRegular() {
		return current{}, nil
	}
	c := current{exists: true, mode: "100644"}
	if fi.Mode()&0o111 != 0 {
		c.mode = "100755"
	}
	if fi.Size() > fallbackMaxFile {
		c.large = true
		if orig != nil && int64(len(*orig)) == fi.Size() {
			c.same, err = sameContent(r, p, *orig)
		}
		return c, err
	}
	c.content, err = r.FS.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return current{}, nil
		}
		return current{}, errors.New("cannot read the file")
	}
	c.same = orig != nil && *orig == string(c.content)
	return c, nil
}

// sameContent compares a file with s without reading it whole.
func sameContent(r *workspace.Root, p, s string) (bool, error) {
	fh, err := r.FS.Open(p)
	if err != nil {
		return false, errors.New("cannot read the file")
	}
	defer fh.Close()
	buf := make([]byte, 64<<10)
	off := 0
	for {
		n, err := fh.Read(buf)
		if n > 0 {
			if off+n > len(s) || string(buf[:n]) != s[off:off+n] {
				return false, nil
			}
			off += n
		}
		if errors.Is(err, io.EOF) {
			return off == len(s), nil
		}
		if err != nil {
			return false, errors.New("cannot read the file")
		}
	}
}

func looksBinary(s string) bool {
	if len(s) > 4096 {
		s = s[:4096]
	}
	return strings.IndexByte(s, 0) >= 0
}

// fileDiff is one file's section in git's format.
func fileDiff(f DiffFile, mode, a, b string, context int) string {
	var w strings.Builder
	fmt.Fprintf(&w, "diff --git a/%s b/%s\n", f.Path, f.Path)
	from, to := "a/"+f.Path, "b/"+f.Path
	switch f.Status {
	case "added":
		fmt.Fprintf(&w, "new file mode %s\n", mode)
		from = "/dev/null"
	case "deleted":
		w.WriteString("deleted file mode 100644\n")
		to = "/dev/null"
	}
	if f.Binary {
		fmt.Fprintf(&w, "Binary files %s and %s differ\n", from, to)
		return w.String()
	}
	if hunks := unifiedHunks(splitLines(a), splitLines(b), context); hunks != "" {
		fmt.Fprintf(&w, "--- %s\n+++ %s\n%s", from, to, hunks)
	}
	return w.String()
}

// splitLines splits text into lines that keep their "\n"
// (docs/coding-tools.md#text-conventions); a final segment without one is a
// line; "" has none.
func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// opcode is a run of the edit script: equal, delete, insert or replace
// of a[i1:i2] by b[j1:j2].
type opcode struct {
	tag            byte // '=', '-', '+', '!'
	i1, i2, j1, j2 int
}

// unifiedHunks renders the hunks of a line diff with context lines.
func unifiedHunks(a, b []string, context int) string {
	ops := opcodes(a, b)
	var w strings.Builder
	for _, g := range groupOpcodes(ops, context) {
		first, last := g[0], g[len(g)-1]
		fmt.Fprintf(&w, "@@ -%s +%s @@\n", hunkRange(first.i1, last.i2), hunkRange(first.j1, last.j2))
		for _, op := range g {
			if op.tag == '=' {
				for _, l := range a[op.i1:op.i2] {
					writeDiffLine(&w, ' ', l)
				}
				continue
			}
			for _, l := range a[op.i1:op.i2] {
				writeDiffLine(&w, '-', l)
			}
			for _, l := range b[op.j1:op.j2] {
				writeDiffLine(&w, '+', l)
			}
		}
	}
	return w.String()
}

func writeDiffLine(w *strings.Builder, sign byte, l string) {
	w.WriteByte(sign)
	w.WriteString(l)
	if !strings.HasSuffix(l, "\n") {
		w.WriteString("\n\\ No newline at end of file\n")
	}
}

// hunkRange is a unified range: "start,len", "start" for one line, the
// line before for none.
func hunkRange(start, stop int) string {
	n := stop - start
	if n == 1 {
		return strconv.Itoa(start + 1)
	}
	if n == 0 {
		return strconv.Itoa(start) + ",0"
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(n)
}

// groupOpcodes splits the script into hunks with n context lines, joining
// changes at most 2n lines apart.
func groupOpcodes(ops []opcode, n int) [][]opcode {
	if len(ops) == 0 {
		return nil
	}
	ops = append([]opcode(nil), ops...)
	if c := &ops[0]; c.tag == '=' {
		c.i1, c.j1 = max(c.i1, c.i2-n), max(c.j1, c.j2-n)
	}
	if c := &ops[len(ops)-1]; c.tag == '=' {
		c.i2, c.j2 = min(c.i2, c.i1+n), min(c.j2, c.j1+n)
	}
	var groups [][]opcode
	var g []opcode
	for _, c := range ops {
		if c.tag == '=' && c.i2-c.i1 > 2*n {
			g = append(g, opcode{'=', c.i1, min(c.i2, c.i1+n), c.j1, min(c.j2, c.j1+n)})
			groups = append(groups, g)
			g = nil
			c.i1, c.j1 = max(c.i1, c.i2-n), max(c.j1, c.j2-n)
		}
		g = append(g, c)
	}
	groups = append(groups, g)
	// Drop groups without a change (the leading and trailing context).
	out := groups[:0]
	for _, g := range groups {
		for _, c := range g {
			if c.tag != '=' {
				out = append(out, trimEmptyEqual(g))
				break
			}
		}
	}
	return out
}

// trimEmptyEqual drops zero-length equal runs (n = 0 produces them).
func trimEmptyEqual(g []opcode) []opcode {
	var out []opcode
	for _, c := range g {
		if c.tag == '=' && c.i1 == c.i2 {
			continue
		}
		out = append(out, c)
	}
	return out
}

// opcodes computes the edit script of a into b (Myers' O(ND) algorithm on
// interned lines, after stripping the common prefix and suffix).
func opcodes(a, b []string) []opcode {
	ids := map[string]int32{}
	intern := func(ls []string) []int32 {
		out := make([]int32, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x, y := intern(a), intern(b)
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	mid := myersMatches(x[pre:len(x)-suf], y[pre:len(y)-suf])
	// matches as pairs of (i, j) in increasing order, over the whole input.
	var pairs [][2]int
	for i := 0; i < pre; i++ {
		pairs = append(pairs, [2]int{i, i})
	}
	for _, m := range mid {
		pairs = append(pairs, [2]int{m[0] + pre, m[1] + pre})
	}
	for k := 0; k < suf; k++ {
		pairs = append(pairs, [2]int{len(x) - suf + k, len(y) - suf + k})
	}
	var ops []opcode
	add := func(tag byte, i1, i2, j1, j2 int) {
		if i1 == i2 && j1 == j2 {
			return
		}
		if n := len(ops); n > 0 && ops[n-1].tag == tag && ops[n-1].i2 == i1 && ops[n-1].j2 == j1 {
			ops[n-1].i2, ops[n-1].j2 = i2, j2
			return
		}
		ops = append(ops, opcode{tag, i1, i2, j1, j2})
	}
	i, j := 0, 0
	for _, p := range append(pairs, [2]int{len(x), len(y)}) {
		if p[0] > i || p[1] > j {
			tag := byte('!')
			if p[1] == j {
				tag = '-'
			} else if p[0] == i {
				tag = '+'
			}
			add(tag, i, p[0], j, p[1])
		}
		if p[0] < len(x) {
			add('=', p[0], p[0]+1, p[1], p[1]+1)
		}
		i, j = p[0]+1, p[1]+1
	}
	return ops
}

// myersMaxTrace bounds the memory of the search (the sum of the saved
// frontier sizes); beyond it the middle is replaced wholesale, a correct
// if not minimal diff.
const myersMaxTrace = 1 << 22

// myersMatches returns the matched (i, j) pairs of a shortest edit script.
func myersMatches(a, b []int32) [][2]int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return nil
	}
	maxD := n + m
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int // trace[d] = v[off-d : off+d+1] before step d
	saved := 0
	for d := 0; d <= maxD; d++ {
		snap := append([]int(nil), v[off-d:off+d+1]...)
		saved += len(snap)
		if saved > myersMaxTrace {
			return nil
		}
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var xx int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				xx = v[off+k+1] // down: insertion
			} else {
				xx = v[off+k-1] + 1 // right: deletion
			}
			yy := xx - k
			for xx < n && yy < m && a[xx] == b[yy] {
				xx++
				yy++
			}
			v[off+k] = xx
			if xx >= n && yy >= m {
				return myersBacktrack(trace, a, b, d, n, m)
			}
		}
	}
	return nil
}

func myersBacktrack(trace [][]int, a, b []int32, d, n, m int) [][2]int {
	var rev [][2]int
	x, y := n, m
	for ; d > 0; d-- {
		prev := trace[d] // v before step d, indexed k+d
		at := func(k int) int { return prev[k+d] }
		k := x - y
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, [2]int{x, y})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, [2]int{x, y})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
