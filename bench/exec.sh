#!/usr/bin/env bash
# exec_command's round trip with the sandbox on (the sealed box, kept warm
# between commands; Landlock; the private home), over stdio and Streamable HTTP, for
# `true` and `echo hi`, against the peer measured in the same run: the same
# command started directly through /bin/sh. The reference Python server of
# the coding-tools profile publishes p95 51 ms against 5.8 ms native for
# the same call; it is not installable here, so its figure is quoted, not
# measured. Target: p95 within 3x of the direct start.
# Usage: bench/exec.sh [CALLS] [COUNT]   (CALLS per run, default 300; COUNT runs, default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${1:-300}
count=${2:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

go test -run '^$' -bench '^(BenchmarkExec|BenchmarkGitStatus)$' -benchtime "${calls}x" -count "$count" ./bench/ | tee "$out"

awk -v cores="$(nproc)" -v count="$count" -v calls="$calls" '
  /^Benchmark(Exec|GitStatus)\// {
    name = $1; sub(/^BenchmarkExec\//, "", name); sub(/^BenchmarkGitStatus\//, "git_status/", name); sub(/-[0-9]+$/, "", name)
    for (i = 4; i < NF; i++) {
      if ($(i + 1) == "p50-ms") { n50[name]++; p50[name, n50[name]] = $i }
      if ($(i + 1) == "p95-ms") { n95[name]++; p95[name, n95[name]] = $i }
    }
  }
  function med(name, n, t,   k, i, j, tmp, a) {
    k = n[name]
    for (i = 1; i <= k; i++) a[i] = t[name, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { tmp = a[i]; a[i] = a[j]; a[j] = tmp }
    return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  function row(cmd,   nat50, nat95, s50, s95, h50, h95) {
    nat50 = med(cmd "/native", n50, p50); nat95 = med(cmd "/native", n95, p95)
    s50 = med(cmd "/stdio", n50, p50); s95 = med(cmd "/stdio", n95, p95)
    h50 = med(cmd "/http", n50, p50); h95 = med(cmd "/http", n95, p95)
    printf "%-8s native p50 %5.2f p95 %5.2f ms | stdio p50 %5.2f p95 %5.2f ms = %4.1fx | HTTP p50 %5.2f p95 %5.2f ms = %4.1fx\n",
      cmd, nat50, nat95, s50, s95, s95 / nat95, h50, h95, h95 / nat95
  }
  END {
    print ""
    printf "== exec_command round trip, sandbox on (%d cores, %d calls a run, median of %d runs; ratios are p95 over native p95) ==\n", cores, calls, count
    row("true"); row("echo_hi")
    nat50 = med("git_status/native", n50, p50); nat95 = med("git_status/native", n95, p95)
    s50 = med("git_status/stdio", n50, p50); s95 = med("git_status/stdio", n95, p95)
    printf "git_status (2,000 files, 40 changes) against git status itself: native p50 %5.2f p95 %5.2f ms | stdio p50 %5.2f p95 %5.2f ms = %4.1fx (p50 %4.1fx)\n", nat50, nat95, s50, s95, s95 / nat95, s50 / nat50
    printf "reference Python server (published, not measured here): p95 51 ms against 5.8 ms native = 8.8x; target: within 3x of native\n"
  }' "$out"
