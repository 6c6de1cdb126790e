#!/usr/bin/env bash
# Benchmarks of the ruleset server with 10,000 stored rulesets, on both
# stores, with ratios against peers measured in the same run:
#   get_ruleset over stdio (embedded store)  vs  ping over the same pipe
#   search_rulesets on Valkey                vs  the bare SCAN MATCH loop
# Needs valkey-server or redis-server on PATH (a private one is started).
# Usage: bench/rulesets.sh [ROUNDS]   (default 2000 stdio round trips)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

go test -run '^$' -bench 'BenchmarkStdio' -benchtime "${rounds}x" ./bench/ | tee -a "$out"
go test -run '^$' -bench 'GetRuleset|SearchRulesets|PeerValkeyScan' -benchtime 100x \
  ./internal/mcprulesets/ | tee -a "$out"

awk '
  /^Benchmark/ { sub(/-[0-9]+$/, "", $1); ns[$1] = $3 }
  function ratio(a, b) { return (ns[b] > 0) ? sprintf("%.2fx", ns[a] / ns[b]) : "n/a" }
  function line(label, key, target) {
    printf "%-44s %12.0f ns/op  (%.3f ms; target < %s)\n", label, ns[key], ns[key] / 1e6, target
  }
  END {
    print ""
    print "== ruleset server, 10,000 rulesets =="
    line("get_ruleset, stdio round trip, embedded", "BenchmarkStdio/get_ruleset", "0.3 ms")
    printf "%-44s %12.0f ns/op  -> get costs %s of a bare ping\n", "  peer: ping over the same stdio pipe", ns["BenchmarkStdio/peer_ping"], ratio("BenchmarkStdio/get_ruleset", "BenchmarkStdio/peer_ping")
    line("search_rulesets *python*, Valkey", "BenchmarkSearchRulesets/valkey", "50 ms")
    printf "%-44s %12.0f ns/op  -> search costs %s of the bare scan\n", "  peer: SCAN MATCH loop, valkey-go", ns["BenchmarkPeerValkeyScan"], ratio("BenchmarkSearchRulesets/valkey", "BenchmarkPeerValkeyScan")
    printf "%-44s %12.0f ns/op\n", "get_ruleset, in-process client, embedded", ns["BenchmarkGetRuleset/embedded"]
    printf "%-44s %12.0f ns/op\n", "get_ruleset, in-process client, Valkey", ns["BenchmarkGetRuleset/valkey"]
    printf "%-44s %12.0f ns/op\n", "search_rulesets, in-process client, embedded", ns["BenchmarkSearchRulesets/embedded"]
  }' "$out"
