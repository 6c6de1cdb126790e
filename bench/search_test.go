package bench_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// searchQueries are the queries bench/search.sh compares: search_text's
// arguments and the ripgrep flags that ask for the same thing.
// search_text is case-insensitive by default (rg -i); both skip hidden
// and git-ignored files, and rg is told to skip the profile's 13
// default-excluded names too, so both search the same files.
var searchQueries = []struct {
	name string
	rg   []string
	args string
}{
	{"literal_i", []string{"-i", "-e", "func main"}, `{"query":"func main"}`},
	{"literal_case", []string{"-s", "-e", "func main"}, `{"query":"func main","case_sensitive":true}`},
	{"regex_i", []string{"-i", "-e", `func \w+Handler`}, `{"query":"func \\w+Handler","regex":true}`},
	{"regex_case", []string{"-s", "-e", `func \w+Handler`}, `{"query":"func \\w+Handler","regex":true,"case_sensitive":true}`},
}

var defaultExcludedNames = []string{".git", ".reference", "node_modules", "target", "dist", "build", ".venv", "venv",
	".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "__pycache__"}

// goSrc is $(go env GOROOT)/src, the tree searched.
func goSrc(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatal(err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// searchTree is the tree searched: $SEARCH_BENCH_TREE (a git work tree,
// say, where both skip what git ignores), else the Go source tree.
func searchTree(b *testing.B) string {
	if t := os.Getenv("SEARCH_BENCH_TREE"); t != "" {
		return t
	}
	return goSrc(b)
}

// runRipgrep runs rg once, reading its output through a pipe as a client
// would, and returns the number of lines it printed and its CPU time.
func runRipgrep(b *testing.B, rg, tree string, flags []string) (int, time.Duration) {
	args := []string{"--no-messages"}
	for _, n := range defaultExcludedNames {
		args = append(args, "-g", "!"+n)
	}
	args = append(append(args, flags...), tree)
	cmd := exec.Command(rg, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	lines := 0
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			lines++
		}
		if err == io.EOF {
			break
		}
		if err != nil && err != bufio.ErrBufferFull {
			b.Fatal(err)
		}
	}
	cmd.Wait() // exit 1 means no match
	return lines, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// mcpProcess runs the server once as a whole: start, initialize, one
// tools/call search_text, read its result, exit. It returns the result
// and the process's CPU time.
func mcpProcess(b *testing.B, bin, tree, args string) ([]byte, time.Duration) {
	cmd := exec.Command(bin, "--stdio", "--workspace", tree)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &rawClient{in: in, out: bufio.NewReaderSize(out, 1<<20)}
	c.roundTrip(b, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	res := c.roundTrip(b, "tools/call", `{"name":"search_text","arguments":`+args+`}`)
	in.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatal(err)
	}
	return res, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// BenchmarkSearch compares search_text with ripgrep on the Go source tree,
// per query: rg as a whole process (the peer), the MCP server as a whole
// process (start, initialize, tools/call, exit), and the tools/call round
// trip on a server already running. Run by bench/search.sh, which prints
// the ratios; with -count the queries' runs interleave.
func BenchmarkSearch(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg not installed (apt-get install -y ripgrep)")
	}
	tree := searchTree(b)
	bin := testkit.Binary(b, "./cmd/coding-tools-mcp")
	warm := startStdio(b, exec.Command(bin, "--stdio", "--workspace", tree))
	for _, q := range searchQueries {
		b.Run(q.name+"/rg", func(b *testing.B) {
			lines, cpu := 0, time.Duration(0)
			for b.Loop() {
				n, c := runRipgrep(b, rg, tree, q.rg)
				lines, cpu = n, cpu+c
			}
			b.ReportMetric(float64(lines), "lines")
			b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
		})
		b.Run(q.name+"/mcp_process", func(b *testing.B) {
			var res []byte
			cpu := time.Duration(0)
			for b.Loop() {
				r, c := mcpProcess(b, bin, tree, q.args)
				res, cpu = r, cpu+c
			}
			b.ReportMetric(float64(totalMatches(res)), "lines")
			b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
		})
		b.Run(q.name+"/mcp_call", func(b *testing.B) {
			var res []byte
			for b.Loop() {
				res = warm.roundTrip(b, "tools/call", `{"name":"search_text","arguments":`+q.args+`}`)
			}
			b.ReportMetric(float64(totalMatches(res)), "lines")
		})
	}
}

// totalMatches digs total_matches out of a tools/call response.
func totalMatches(res []byte) int {
	i := bytes.Index(res, []byte(`"total_matches":`))
	if i < 0 {
		return -1
	}
	n := 0
	for _, c := range res[i+len(`"total_matches":`):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}
