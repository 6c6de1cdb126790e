package search

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/workspace"
)

// BenchmarkSearchText searches the Go distribution's source tree
// ($(go env GOROOT)/src, ~11,000 files, ~150 MB) in process: a literal
// and a regex, case-insensitive (the default) and case-sensitive.
// bench/search.sh compares the server with ripgrep on the same queries.
func BenchmarkSearchText(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("go env GOROOT:", err)
	}
	r, err := workspace.Open(filepath.Join(strings.TrimSpace(string(out)), "src"))
	if err != nil {
		b.Skip(err)
	}
	defer r.FS.Close()
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"literal", Options{Query: "func main"}},
		{"literal_case", Options{Query: "func main", CaseSensitive: true}},
		{"regex", Options{Query: `func \w+Handler`, Regex: true}},
		{"regex_case", Options{Query: `func \w+Handler`, Regex: true, CaseSensitive: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var total int64
			for b.Loop() {
				res, err := Text(context.Background(), r, c.o)
				if err != nil {
					b.Fatal(err)
				}
				total = res.TotalMatches
			}
			b.ReportMetric(float64(total), "matches")
		})
	}
}
