package extcheck

// The conformance suite's requirements of MCP 2026-07-28 (--requirements
// 2026-07-28: the scenarios that revision requires, frozen at its release,
// at its wire) against each server's HTTP endpoint, next to TestConformance.
// Only the required scenarios count; the suite also runs extensions and
// pending ones, which it does not score. A check the suite reports as
// untestable (it needs a diagnostic tool of the suite's own test server)
// is logged, not failed. testdata/requirements-2026-skips.txt lists the
// scenarios that do not apply to a server, with the reason; the test fails
// on any other failure, on a listed scenario that passes, and on an entry
// that names no required scenario.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	revision2026      = "2026-07-28"
	requirementsSkips = "testdata/requirements-2026-skips.txt"
)

func TestConformance2026Requirements(t *testing.T) {
	tl := requireTools(t)
	skips, err := readSkips(requirementsSkips)
	if err != nil {
		t.Fatal(err)
	}
	required := requiredScenarios(t, tl)
	t.Logf("%s@%s: %d server scenarios required by %s", conformancePackage, requirementsVersion, len(required), revision2026)
	for server, m := range skips {
		if !slices.ContainsFunc(servers, func(sc serverCase) bool { return sc.name == server }) {
			t.Errorf("%s: unknown server %q", requirementsSkips, server)
		}
		for scenario := range m {
			if !slices.Contains(required, scenario) {
				t.Errorf("%s: %s %s: %s requires no such scenario", requirementsSkips, server, scenario, revision2026)
			}
		}
	}

	for _, sc := range servers {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			dir := sc.prepare(t)
			home := t.TempDir()
			url := startHTTP(t, dir, home, sc.http(dir)...)
			out := t.TempDir()
			r := tl.run(t, dir, home, 5*time.Minute, tl.requirements, "server", "--url", url, "--requirements", revision2026, "-o", out)
			results, err := readResults(out)
			if err != nil {
				t.Fatal(err)
			}
			var passed, notApplicable int
			for _, scenario := range required {
				checks, ran := results[scenario]
				reason, listed := skips[sc.name][scenario]
				if !ran {
					t.Errorf("%s: scenario did not run\nconformance output (exit %d):\n%s\n%s", scenario, r.code, r.stdout, r.stderr)
					continue
				}
				var failures []string
				for _, c := range checks {
					switch {
					case c.Status == "FAILURE" && c.untestable():
						t.Logf("%s: not testable here: %s", scenario, c.describe())
					case c.Status == "FAILURE":
						failures = append(failures, c.describe())
					case c.Status == "WARNING":
						t.Logf("%s: warning: %s", scenario, c.describe())
					}
				}
				switch {
				case len(failures) > 0 && listed:
					notApplicable++
				case len(failures) > 0:
					t.Errorf("%s %s fails at %s:\n  %s\n(a scenario that cannot apply to this server goes in %s with the reason)",
						sc.name, scenario, revision2026, strings.Join(failures, "\n  "), requirementsSkips)
				case listed:
					t.Errorf("%s %s passes now: remove it from %s (%s)", sc.name, scenario, requirementsSkips, reason)
				default:
					passed++
				}
			}
			t.Logf("%s: %d required scenarios pass, %d do not apply (listed)", revision2026, passed, notApplicable)
		})
	}
}

// untestable reports whether the suite could not exercise c here (it says
// so in the check's details).
func (c check) untestable() bool {
	d, ok := c.Details.(map[string]any)
	return ok && d["untestable"] == true
}

var (
	requiredOnce sync.Once
	requiredList []string
	requiredErr  error
)

// requiredScenarios are the server scenarios the suite lists as required
// by revision2026: those under "Server scenarios", before "Client
// scenarios" and before what it does not score.
func requiredScenarios(t *testing.T, tl *nodeTools) []string {
	t.Helper()
	requiredOnce.Do(func() {
		r := tl.run(t, t.TempDir(), t.TempDir(), time.Minute, tl.requirements, "list", "--server", "--requirements", revision2026)
		if r.code != 0 {
			requiredErr = fmt.Errorf("conformance list --server --requirements %s: exit %d\n%s\n%s", revision2026, r.code, r.stdout, r.stderr)
			return
		}
		inServer := false
		for _, line := range strings.Split(r.stdout, "\n") {
			switch {
			case strings.HasPrefix(line, "Server scenarios"):
				inServer = true
			case !strings.HasPrefix(line, " ") && strings.TrimSpace(line) != "":
				inServer = false
			case inServer:
				if m := requiredLineRE.FindStringSubmatch(line); m != nil {
					requiredList = append(requiredList, m[1])
				}
			}
		}
		if len(requiredList) == 0 {
			requiredErr = fmt.Errorf("conformance list --requirements %s listed no server scenario:\n%s", revision2026, r.stdout)
		}
	})
	if requiredErr != nil {
		t.Fatal(requiredErr)
	}
	return requiredList
}

var requiredLineRE = regexp.MustCompile(`^\s+-\s+(\S+)`)
