#!/usr/bin/env bash
# Whole-process timings of the tracker CLI on a generated repository of
# 10,000 issues, 1,000 specs and 20,000 relationships, as an agent runs it,
# with the ratio to the peer measured in the same run: the process floor
# (sudocode --version, the same binary doing no work).
# Usage: bench/tracker.sh [ROUNDS]   (default 50 runs of each command)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-50}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

go test -run '^$' -bench 'BenchmarkTrackerCLI' -benchtime "${rounds}x" ./bench/ | tee "$out"

awk '
  /^Benchmark/ { sub(/-[0-9]+$/, "", $1); ns[$1] = $3 }
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
  }' "$out"
