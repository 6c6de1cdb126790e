package bench_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
	"github.com/sudocode/sudocode/internal/tracker/trackergen"
)

// BenchmarkTrackerMCP measures tool-call round trips to `sudocode mcp` over
// stdio, as an agent's client makes them, on the generated repository of
// 10,000 issues; it reports the median (p50-ms) beside the mean, with a
// bare ping over the same pipe as the peer.
func BenchmarkTrackerMCP(b *testing.B) {
	bin := testkit.Binary(b, "./cmd/sudocode")
	dir := b.TempDir()
	if err := trackergen.Generate(dir, trackergen.Benchmark); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SUDOCODE_ACTOR=bench")
	c := startStdio(b, cmd)
	list := string(c.roundTrip(b, "tools/call", `{"name":"list_issues","arguments":{"limit":1}}`)) // builds the cache
	id := strings.SplitN(strings.SplitN(list, `\"id\":\"`, 2)[1], `\"`, 2)[0]
	for _, bc := range []struct{ name, method, params string }{
		{"ready", "tools/call", `{"name":"ready","arguments":{}}`},
		{"show_issue", "tools/call", fmt.Sprintf(`{"name":"show_issue","arguments":{"issue_id":%q}}`, id)},
		{"peer_ping", "ping", ""},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				c.roundTrip(b, bc.method, bc.params)
				lat = append(lat, time.Since(t0))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
