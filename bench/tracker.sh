#!/usr/bin/env bash
# The tracker on a generated repository of 10,000 issues, 1,000 specs and
# 20,000 relationships, with peers measured in the same run:
#   the CLI, whole processes, as an agent runs it  vs  the process floor
#     (sudocode --version, the same binary doing no work)
#   the MCP server (sudocode mcp), tool calls over stdio, median  vs  a
#     bare ping over the same pipe
# Usage: bench/tracker.sh [ROUNDS]   (default 50 runs of each command)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-50}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

go test -run '^$' -bench 'BenchmarkTrackerCLI' -benchtime "${rounds}x" ./bench/ | tee "$out"
go test -run '^$' -bench 'BenchmarkTrackerMCP' -benchtime "$((rounds * 10))x" ./bench/ | tee -a "$out"

awk '
  /^Benchmark/ { sub(/-[0-9]+$/, "", $1); ns[$1] = $3; if ($6 == "p50-ms") p50[$1] = $5 }
  function line(label, key, target) {
    floor = ns["BenchmarkTrackerCLI/peer_version"]
    printf "%-28s %7.1f ms  (target < %s ms; %.1fx the process floor)\n", label, ns[key] / 1e6, target, ns[key] / floor
  }
  END {
    print ""
    print "== tracker CLI, whole process, 10,000 issues / 1,000 specs / 20,000 relationships =="
    line("sudocode ready --json", "BenchmarkTrackerCLI/ready", 40)
    line("sudocode issue create", "BenchmarkTrackerCLI/issue_create", 15)
    line("sudocode issue show", "BenchmarkTrackerCLI/issue_show", 10)
    printf "%-28s %7.1f ms  (peer: the process floor)\n", "sudocode --version", ns["BenchmarkTrackerCLI/peer_version"] / 1e6
    print ""
    print "== tracker MCP server (sudocode mcp), stdio round trips, median =="
    ping = p50["BenchmarkTrackerMCP/peer_ping"]
    printf "%-28s %7.2f ms  (target < 2 ms; %.1fx a bare ping)\n", "ready", p50["BenchmarkTrackerMCP/ready"], p50["BenchmarkTrackerMCP/ready"] / ping
    printf "%-28s %7.2f ms  (target < 2 ms; %.1fx a bare ping)\n", "show_issue", p50["BenchmarkTrackerMCP/show_issue"], p50["BenchmarkTrackerMCP/show_issue"] / ping
    printf "%-28s %7.2f ms  (peer)\n", "ping", ping
  }' "$out"
