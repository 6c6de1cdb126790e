#!/usr/bin/env bash
# search_text against ripgrep on the Go distribution's source tree
# ($(go env GOROOT)/src; SEARCH_BENCH_TREE=DIR searches another, a git work
# tree for instance), the same queries measured in the same run:
#   rg, a whole process per query, its output read through a pipe (the peer)
#   coding-tools-mcp --stdio as a whole process per query: start,
#     initialize, tools/call search_text, read the result, exit
#   the tools/call round trip alone, on a server already running
# Fairness: search_text is case-insensitive by default, so the default
# queries are compared with rg -i and the case_sensitive ones with rg -s;
# both skip hidden and git-ignored files, and rg is given the profile's 13
# default-excluded names as globs so that both search the same files (the
# "lines" columns show they find the same lines). Each figure is the median
# of COUNT interleaved runs (default 7) of ROUNDS calls (default 5); wall
# time, and for the whole processes also CPU time (user + system), which
# load from elsewhere on a shared machine disturbs less.
# Needs rg (apt-get install -y ripgrep).
# Usage: bench/search.sh [COUNT] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-7}
rounds=${2:-5}
command -v rg >/dev/null || { echo "bench/search.sh: rg not found (apt-get install -y ripgrep)" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT

go test -run '^$' -bench '^BenchmarkSearch$' -benchtime "${rounds}x" -count "$count" ./bench/ | tee "$out"

awk -v tree="${SEARCH_BENCH_TREE:-$(go env GOROOT)/src}" -v cores="$(nproc)" -v count="$count" '
  /^BenchmarkSearch\// {
    name = $1; sub(/^BenchmarkSearch\//, "", name); sub(/-[0-9]+$/, "", name)
    n[name]++; t[name, n[name]] = $3
    for (i = 4; i < NF; i++) {
      if ($(i + 1) == "lines") lines[name] = $i
      if ($(i + 1) == "cpu-ms/op") { nc[name]++; c[name, nc[name]] = $i }
    }
  }
  function median(name) { return med(name, n, t) }
  function cpu(name) { return med(name, nc, c) }
  function med(name, n, t,   k, i, j, tmp, a) {
    k = n[name]
    for (i = 1; i <= k; i++) a[i] = t[name, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { tmp = a[i]; a[i] = a[j]; a[j] = tmp }
    return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  function row(label, q,   rg, proc, call, rgc, procc) {
    rg = median(q "/rg"); proc = median(q "/mcp_process"); call = median(q "/mcp_call")
    rgc = cpu(q "/rg"); procc = cpu(q "/mcp_process")
    printf "%-36s wall: rg %6.1f ms, MCP process %6.1f ms = %.2fx, tools/call %6.1f ms = %.2fx | CPU: rg %6.1f ms, MCP process %6.1f ms = %.2fx | lines rg %d / MCP %d\n",
      label, rg / 1e6, proc / 1e6, proc / rg, call / 1e6, call / rg, rgc, procc, procc / rgc, lines[q "/rg"], lines[q "/mcp_process"]
  }
  END {
    print ""
    printf "== search_text vs ripgrep on %s (%d cores, median of %d runs; target: MCP within 1.5x rg) ==\n", tree, cores, count
    row("\"func main\", case-insensitive", "literal_i")
    row("\"func main\", case-sensitive", "literal_case")
    row("/func \\w+Handler/, case-insensitive", "regex_i")
    row("/func \\w+Handler/, case-sensitive", "regex_case")
    printf "reference Python server (published, not measured here): 150 ms a search of an 11,500-file tree\n"
  }' "$out"
