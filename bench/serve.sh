#!/usr/bin/env bash
# Load test of `sudocode serve`, with a peer measured in the same run:
#   50 concurrent MCP clients (the SDK's Streamable HTTP client), each with a
#   session per endpoint, calling in turn tracker ready and list_issues,
#   rulesets list_rulesets and get_ruleset, coding read_file and list_dir,
#   agent report_task (on a COMMAND task it runs first), against the built
#   binary serving a generated repository (1,000 issues)
#                              vs
#   the same clients calling a bare MCP server with one no-op tool on the same
#   HTTP stack (mcpx.Handler: origin, token and body checks, then the SDK's
#   Streamable HTTP handler), also its own process.
# No error is allowed (exit 1). Everything stays on 127.0.0.1 and stops by
# itself after two phases of SERVE_BENCH_DURATION each.
# Usage: SERVE_BENCH_DURATION=60s SERVE_BENCH_CLIENTS=50 bench/serve.sh
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${SERVE_BENCH_DURATION:-60s}
[[ $duration =~ ^[0-9]+$ ]] && duration=${duration}s   # seconds, or a Go duration (90s, 2m)
clients=${SERVE_BENCH_CLIENTS:-50}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/bin/" ./cmd/sudocode ./bench/serveload ./bench/gentracker
repo=$work/repo
mkdir -p "$repo"
(
  cd "$repo"
  git init -q
  echo "# bench" > README.md
  git add README.md
  git -c user.name=bench -c user.email=bench@example.com commit -q -m init
)
"$work/bin/gentracker" -o "$repo" -issues 1000 -specs 100 -relationships 2000 >/dev/null

# The server under test, on a free loopback port, its embedded ruleset store
# in the work directory, with a token of this run (serve needs one on
# loopback too). With one token every load client is the same client,
# holding a session per endpoint: the session limits are raised to fit them.
sessions=$((clients * 4 + 64))
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
SUDOCODE_TOKEN=$token "$work/bin/sudocode" serve --addr 127.0.0.1:0 --json --dir "$repo" --store "$work/rulesets" \
  --max-sessions-per-client "$sessions" --max-sessions "$sessions" \
  --log-level warn >"$work/serve.json" 2>"$work/serve.log" &
pids+=($!)
"$work/bin/serveload" peer >"$work/peer.url" 2>"$work/peer.log" &
pids+=($!)

url= peer=
for _ in $(seq 100); do
  url=$(grep -o '"url": *"[^"]*"' "$work/serve.json" 2>/dev/null | head -1 | sed 's/.*"\(http[^"]*\)"/\1/' || true)
  peer=$(head -1 "$work/peer.url" 2>/dev/null || true)
  [[ -n $url && -n $peer ]] && break
  sleep 0.1
done
if [[ -z $url || -z $peer ]]; then
  echo "the servers did not start:" >&2
  cat "$work/serve.log" "$work/peer.log" >&2
  exit 1
fi
echo "serve at $url, peer at $peer"

SERVELOAD_TOKEN=$token "$work/bin/serveload" load -target "$url" -peer "$peer" -clients "$clients" -duration "$duration"
