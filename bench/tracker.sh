#!/usr/bin/env bash
# The tracker on generated repositories, at two sizes, with peers measured
# in the same run:
#   10,000 issues / 1,000 specs / 20,000 relationships, and
#   100,000 issues / 10,000 specs / 200,000 relationships;
#   the CLI, whole processes, as an agent runs it  vs  the process floor
#     (sudocode --version, the same binary doing no work), and the whole
#     issue list  vs  cat writing the same bytes
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
  /^(small|large|Benchmark)/ { sub(/-[0-9]+$/, "", $1); ns[$1] = $3; if ($6 == "p50-ms") p50[$1] = $5 }
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
