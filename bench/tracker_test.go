package bench_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker/trackergen"
)

// BenchmarkTrackerCLI measures whole sudocode processes, as an agent runs
// them, on a generated repository of 10,000 issues, 1,000 specs and 20,000
// relationships; the peer is the process floor (sudocode --version).
func BenchmarkTrackerCLI(b *testing.B) {
	bin := testkit.Binary(b, "./cmd/sudocode")
	dir := b.TempDir()
	if err := trackergen.Generate(dir, trackergen.Benchmark); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, args ...string) []byte {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SUDOCODE_ACTOR=bench")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
		return out
	}
	run(b, "status") // builds the cache
	showID := strings.SplitN(strings.SplitN(string(run(b, "issue", "list", "--json", "--limit", "1")), `"id": "`, 2)[1], `"`, 2)[0]
	for _, c := range []struct {
		name string
		args []string
	}{
		{"ready", []string{"ready", "--json"}},
		{"issue_create", []string{"issue", "create", "Benchmark issue", "--json"}},
		{"issue_show", []string{"issue", "show", showID, "--json"}},
		{"peer_version", []string{"--version"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				run(b, c.args...)
			}
		})
	}
}
