package extcheck

// The official conformance suite (@modelcontextprotocol/conformance) runs
// every server scenario it has (--suite all, the pending ones included)
// against each server's HTTP endpoint. A scenario fails when one of its
// checks is a FAILURE; warnings are logged. testdata/conformance-skips.txt
// lists the scenarios that do not apply to a server, with the reason; the
// test fails on any other failure, on a listed scenario that passes, and
// on a list entry that names no scenario of the suite.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const skipsFile = "testdata/conformance-skips.txt"

func TestConformance(t *testing.T) {
	tl := requireTools(t)
	skips, err := readSkips(skipsFile)
	if err != nil {
		t.Fatal(err)
	}
	scenarios := serverScenarios(t, tl)
	t.Logf("%s@%s: %d server scenarios", conformancePackage, conformanceVersion, len(scenarios))

	known := map[string]bool{}
	for _, sc := range servers {
		known[sc.name] = true
	}
	for server, m := range skips {
		if !known[server] {
			t.Errorf("%s: unknown server %q", skipsFile, server)
		}
		for scenario := range m {
			if !slices.Contains(scenarios, scenario) {
				t.Errorf("%s: %s %s: the suite has no such scenario", skipsFile, server, scenario)
			}
		}
	}

	for _, sc := range servers {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			dir := sc.prepare(t)
			home := t.TempDir()
			url := startHTTP(t, dir, home, sc.http(dir)...)
			out := t.TempDir()
			r := tl.run(t, dir, home, 3*time.Minute, tl.conformance, "server", "--url", url, "--suite", "all", "-o", out)
			results, err := readResults(out)
			if err != nil {
				t.Fatal(err)
			}
			skipped := skips[sc.name]
			var passed, failed, skippedFailed int
			for _, scenario := range scenarios {
				checks, ran := results[scenario]
				reason, listed := skipped[scenario]
				if !ran {
					t.Errorf("%s: scenario did not run\nconformance output (exit %d):\n%s\n%s", scenario, r.code, r.stdout, r.stderr)
					continue
				}
				var failures []string
				for _, c := range checks {
					switch c.Status {
					case "FAILURE":
						failures = append(failures, c.describe())
					case "WARNING":
						t.Logf("%s: warning: %s", scenario, c.describe())
					}
				}
				switch {
				case len(failures) > 0 && listed:
					skippedFailed++
				case len(failures) > 0:
					failed++
					t.Errorf("%s %s fails:\n  %s\n(a scenario that cannot apply to this server goes in %s with the reason)",
						sc.name, scenario, strings.Join(failures, "\n  "), skipsFile)
				case listed:
					t.Errorf("%s %s passes now: remove it from %s (%s)", sc.name, scenario, skipsFile, reason)
				default:
					passed++
				}
			}
			t.Logf("%d scenarios pass, %d fail, %d do not apply (listed), in %s", passed, failed, skippedFailed,
				time.Since(start).Round(time.Millisecond))
		})
	}
}

var (
	scenariosOnce sync.Once
	scenarioList  []string
	scenariosErr  error
)

var scenarioLineRE = regexp.MustCompile(`^\s*-\s+(\S+)`)

// serverScenarios is the suite's list of server scenarios.
func serverScenarios(t *testing.T, tl *nodeTools) []string {
	t.Helper()
	scenariosOnce.Do(func() {
		r := tl.run(t, t.TempDir(), t.TempDir(), time.Minute, tl.conformance, "list", "--server")
		if r.code != 0 {
			scenariosErr = fmt.Errorf("conformance list --server: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			return
		}
		for _, line := range strings.Split(r.stdout, "\n") {
			if m := scenarioLineRE.FindStringSubmatch(line); m != nil {
				scenarioList = append(scenarioList, m[1])
			}
		}
		if len(scenarioList) == 0 {
			scenariosErr = fmt.Errorf("conformance list --server listed no scenario:\n%s", r.stdout)
		}
	})
	if scenariosErr != nil {
		t.Fatal(scenariosErr)
	}
	return scenarioList
}

// check is one check of a scenario's checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
	Details      any    `json:"details"`
}

func (c check) describe() string {
	s := c.ID + ": " + c.Description
	if c.ErrorMessage != "" {
		s += ": " + c.ErrorMessage
	}
	if c.Details != nil {
		d := mustJSON(c.Details)
		if len(d) > 600 {
			d = d[:600] + "…"
		}
		s += " " + d
	}
	return s
}

// resultDirRE is a scenario's result directory: server-<scenario>-<time>.
var resultDirRE = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

// readResults reads the checks of each scenario from the suite's output
// directory.
func readResults(dir string) (map[string][]check, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	results := map[string][]check{}
	for _, e := range entries {
		m := resultDirRE.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			return nil, err
		}
		var checks []check
		if err := json.Unmarshal(b, &checks); err != nil {
			return nil, fmt.Errorf("%s/checks.json: %w", e.Name(), err)
		}
		results[m[1]] = append(results[m[1]], checks...)
	}
	return results, nil
}

// readSkips reads the list of scenarios that do not apply: one
// "server scenario  # reason" a line, blank lines and lines starting with
// # ignored. Every entry needs its reason.
func readSkips(path string) (map[string]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	skips := map[string]map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		entry, reason, _ := strings.Cut(line, "#")
		fields := strings.Fields(entry)
		reason = strings.TrimSpace(reason)
		if len(fields) != 2 || reason == "" {
			return nil, fmt.Errorf("%s:%d: want \"server scenario  # reason\", got %q", path, n, line)
		}
		server, scenario := fields[0], fields[1]
		if skips[server] == nil {
			skips[server] = map[string]string{}
		}
		if _, dup := skips[server][scenario]; dup {
			return nil, fmt.Errorf("%s:%d: %s %s listed twice", path, n, server, scenario)
		}
		skips[server][scenario] = reason
	}
	return skips, sc.Err()
}
