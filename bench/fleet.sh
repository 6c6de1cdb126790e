#!/usr/bin/env bash
# The fleet (serve's default, NATS JetStream), with its peer measured in the
# same run: serve running the agents as its own processes. A COMMAND agent
# commits a one-file change; each task's overhead is the time from the
# request that starts it to the agent's first output, plus from its last
# output to the task's end as stored: the orchestration's own time, not
# the agent's. At 1, 4 and 16 tasks at once:
#   local                serve --fleet=false (the peer)
#   fleet_one_machine    serve (--fleet, the default): the worker in serve's process runs
#                        each agent in its task's worktree
#   fleet_three_workers  serve --fleet --local-slots 0 and three `sudocode
#                        worker` processes, each with a clone of its own
# On one machine the three workers share its cores with everything else:
# the figures are the fleet's cost, not what three machines would add.
# Usage: bench/fleet.sh [ROUNDS]   (default 3 batches of each)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

go test -run '^$' -bench '^BenchmarkFleet$' -benchtime "${rounds}x" ./bench/ | tee "$out"

awk '
  /^BenchmarkFleet\// {
    name = $1; sub(/^BenchmarkFleet\//, "", name); sub(/-[0-9]+$/, "", name)
    for (i = 3; i < NF; i += 2) v[name, $(i + 1)] = $i
  }
  END {
    print ""
    print "== a task'"'"'s own overhead (request → agent start, agent end → stored), median, and tasks per minute =="
    split("1 4 16", pars, " ")
    for (k = 1; k <= 3; k++) {
      p = pars[k]; peer = v["local/parallel_" p, "overhead-p50-ms"]
      printf "%2s at once: %-22s %7.0f ms  %6.1f tasks/min  (peer)\n", p, "local", peer, v["local/parallel_" p, "tasks/min"]
      split("fleet_one_machine fleet_three_workers", setups, " ")
      for (j = 1; j <= 2; j++) {
        s = setups[j]; o = v[s "/parallel_" p, "overhead-p50-ms"]
        printf "%2s at once: %-22s %7.0f ms  %6.1f tasks/min  (%.2fx local%s)\n", p, s, o, v[s "/parallel_" p, "tasks/min"], o / peer, (p == 16 ? "; target < 1000 ms" : "")
      }
    }
  }' "$out"
