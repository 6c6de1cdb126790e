#!/usr/bin/env bash
# The tracker on generated repositories, at two sizes, with peers measured
# in the same run:
#   10,000 issues / 1,000 specs / 20,000 relationships, and
#   100,000 issues / 10,000 specs / 200,000 relationships;
#   the CLI, whole processes, as an agent runs it  vs  the process floor
#     (sudocode --version, the same binary doing no work), the whole
#     issue list  vs  cat writing the same bytes, and a row of the whole
#     blocked list (each item with what it waits for)  vs  a row of the
#     whole issue list
#   the MCP server (sudocode mcp), tool calls over stdio, median  vs  a
#     bare ping over the same pipe (10,000 issues)
# Usage: bench/tracker.sh [ROUNDS]   (default 20 runs of each command;
#   the cold start, the pull and the migration from the first layout run
#   ROUNDS/5 times)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for size in small large; do
  TRACKER_SIZE=$size go test -run '^$' -bench 'BenchmarkTrackerCLI/^[^cpm]' -benchtime "${rounds}x" ./bench/ | sed "s/^BenchmarkTrackerCLI/$size/" | tee -a "$out"
  TRACKER_SIZE=$size go test -run '^$' -bench 'BenchmarkTrackerCLI/^(peer|cold|pull|migrate)' -benchtime "$(( (rounds + 4) / 5 ))x" ./bench/ | sed "s/^BenchmarkTrackerCLI/$size/" | tee -a "$out"
done
go test -run '^$' -bench 'BenchmarkTrackerMCP' -benchtime "$((rounds * 10))x" ./bench/ | tee -a "$out"

awk '
  /^(small|large|Benchmark)/ {
    sub(/-[0-9]+$/, "", $1); ns[$1] = $3; if ($6 == "p50-ms") p50[$1] = $5
    for (i = 5; i <= NF; i += 2) { if ($(i+1) == "rows") rows[$1] = $i; if ($(i+1) == "cpu-ns/op") cpu[$1] = $i }
  }
  function line(size, label, key, target) {
    floor = ns[size "/peer_version"]
    printf "%-30s %8.1f ms  (target < %s ms; %.1fx the process floor)\n", label, ns[size "/" key] / 1e6, target, ns[size "/" key] / floor
  }
  function report(size, title) {
    print ""
    print "== tracker CLI, whole process, " title " =="
    line(size, "sudocode ready --json", "ready", 50)
    line(size, "sudocode blocked --json", "blocked", 50)
    line(size, "sudocode stats --json", "stats", 50)
    line(size, "sudocode issue show", "issue_show", 15)
    line(size, "sudocode issue create", "issue_create", 20)
    line(size, "sudocode issue update --status", "issue_update", 20)
    line(size, "cold start (no cache.db)", "cold_start", 5000)
    printf "%-30s %8.1f ms  (no target: the first command on a first-layout tracker, beside the cold start)\n", "migrate from the first layout", ns[size "/migrate"] / 1e6
    line(size, "after a pull that changed 10", "pull_of_10", 200)
    printf "%-30s %8.1f ms  (bound by output: %.1fx cat writing the same bytes, %.1f ms)\n", "issue list --all (every issue)", ns[size "/list_all"] / 1e6, ns[size "/list_all"] / ns[size "/peer_list_bytes"], ns[size "/peer_list_bytes"] / 1e6
    # a row of the whole blocked list against a row of the whole issue
    # list: elapsed, and the CPU time of the processes (less stretched by a
    # loaded machine)
    n = rows[size "/blocked_all"]; m = rows[size "/list_all"]
    printf "%-30s %8.1f ms  (%d rows: %.1f us a row, CPU %.1f us; issue list --all: %.1f us, CPU %.1f us; %.1fx, CPU %.1fx)\n", "blocked --limit 0 --json", ns[size "/blocked_all"] / 1e6, n,
      ns[size "/blocked_all"] / n / 1e3, cpu[size "/blocked_all"] / n / 1e3, ns[size "/list_all"] / m / 1e3, cpu[size "/list_all"] / m / 1e3,
      (ns[size "/blocked_all"] / n) / (ns[size "/list_all"] / m), (cpu[size "/blocked_all"] / n) / (cpu[size "/list_all"] / m)
    printf "%-30s %8.1f ms  (%.1f us a row, CPU %.1f us)\n", "blocked --limit 0 (text)", ns[size "/blocked_all_text"] / 1e6, ns[size "/blocked_all_text"] / n / 1e3, cpu[size "/blocked_all_text"] / n / 1e3
    printf "%-30s %8.1f ms  (peer: the process floor)\n", "sudocode --version", ns[size "/peer_version"] / 1e6
  }
  END {
    report("small", "10,000 issues / 1,000 specs / 20,000 relationships")
    report("large", "100,000 issues / 10,000 specs / 200,000 relationships")
    print ""
    print "== tracker MCP server (sudocode mcp), stdio round trips, median, 10,000 issues =="
    ping = p50["BenchmarkTrackerMCP/peer_ping"]
    printf "%-30s %8.2f ms  (target < 2 ms; %.1fx a bare ping)\n", "ready", p50["BenchmarkTrackerMCP/ready"], p50["BenchmarkTrackerMCP/ready"] / ping
    printf "%-30s %8.2f ms  (target < 2 ms; %.1fx a bare ping)\n", "show_issue", p50["BenchmarkTrackerMCP/show_issue"], p50["BenchmarkTrackerMCP/show_issue"] / ping
    printf "%-30s %8.2f ms  (peer)\n", "ping", ping
  }' "$out"
