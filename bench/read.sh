#!/usr/bin/env bash
# read_file of a whole 2,000-line Go file (80 KB: the first 2,000 lines of
# net/http/server.go) on a running coding-tools-mcp, over stdio and over
# Streamable HTTP, against the peer measured in the same run: `sed -n
# 1,2000p` of the same file started directly, its output read through a
# pipe. The reference Python server of the coding-tools profile publishes
# 4.2 ms a call for the same read; it is not installable here, so its
# figure is quoted, not measured. Then the server's own CPU time per call
# in process (the tools/call path: decoding, the read, encoding the
# result), which load from elsewhere on a shared machine disturbs less.
# Usage: bench/read.sh [CALLS] [COUNT]   (CALLS per run, default 300; COUNT runs, default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${1:-300}
count=${2:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

go test -run '^$' -bench '^BenchmarkReadFile$' -benchtime "${calls}x" -count "$count" ./bench/ | tee "$out"

awk -v cores="$(nproc)" -v count="$count" -v calls="$calls" '
  /^BenchmarkReadFile\// {
    name = $1; sub(/^BenchmarkReadFile\//, "", name); sub(/-[0-9]+$/, "", name)
    for (i = 4; i < NF; i++) {
      if ($(i + 1) == "p50-ms") { n50[name]++; p50[name, n50[name]] = $i }
      if ($(i + 1) == "p95-ms") { n95[name]++; p95[name, n95[name]] = $i }
      if ($(i + 1) == "cpu-ms/op") { nc[name]++; c[name, nc[name]] = $i }
    }
  }
  function med(name, n, t,   k, i, j, tmp, a) {
    k = n[name]
    for (i = 1; i <= k; i++) a[i] = t[name, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { tmp = a[i]; a[i] = a[j]; a[j] = tmp }
    return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    print ""
    printf "== read_file of a 2,000-line file (%d cores, %d calls a run, median of %d runs; ratios are p50 over sed p50) ==\n", cores, calls, count
    s50 = med("native", n50, p50); s95 = med("native", n95, p95)
    printf "sed -n 1,2000p  p50 %5.2f p95 %5.2f ms\n", s50, s95
    printf "stdio           p50 %5.2f p95 %5.2f ms = %4.2fx\n", med("stdio", n50, p50), med("stdio", n95, p95), med("stdio", n50, p50) / s50
    printf "HTTP            p50 %5.2f p95 %5.2f ms = %4.2fx\n", med("http", n50, p50), med("http", n95, p95), med("http", n50, p50) / s50
    printf "server CPU per call, in process: %.2f ms\n", med("inprocess", nc, c)
    printf "reference Python server (published, not measured here): 4.2 ms a call\n"
  }' "$out"
