#!/usr/bin/env bash
# The agent orchestrator, with peers measured in the same run:
#   create_task → agent start on a generated 10,000-file repository (Create
#     returns once the COMMAND agent's exec succeeded), median, with the
#     warm worktree and without it  vs  a bare `git worktree add -b` of the
#     same repository
#   ingestion of 100,000 events: an agent printing 100,000 Claude Code JSON
#     lines, parsed, batched and stored by a task  vs  decoding the same
#     lines into a slice and storing nothing
#   the loop's own overhead through the binary, 10,000-file repository,
#     median: task start to the agent's first command, the agent's last
#     output to task start's report, task merge of a one-file change  vs
#     a bare git worktree add -b and a bare git merge --no-ff there
#   reading tasks, whole processes, with 100 finished tasks: task list and
#     task show  vs  sudocode ready on the same repository
# Worktrees go under TMPDIR (default /tmp): set TMPDIR to measure another disk.
# Usage: bench/agent.sh [ROUNDS]   (default 20 creates of each kind, 5 ingestions)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

go test -run '^$' -bench '^BenchmarkCreateToStart$' -benchtime "${rounds}x" ./internal/orchestrator/ | tee "$out"
go test -run '^$' -bench '^BenchmarkIngest$' -benchtime 5x ./internal/orchestrator/ | tee -a "$out"
go test -run '^$' -bench '^BenchmarkTaskList$' -benchtime "${rounds}x" ./bench/ | tee -a "$out"
go test -run '^$' -bench '^BenchmarkLoop$' -benchtime "$(( (rounds + 1) / 2 ))x" ./bench/ | tee -a "$out"

awk '
  /^Benchmark/ {
    name = $1; sub(/-[0-9]+$/, "", name); ns[name] = $3
    for (i = 6; i <= NF; i += 2) { unit = $i; sub(/-ms$/, "", unit); if ($i ~ /p50-ms$/) m[name, unit] = $(i - 1) }
    if ($6 == "p50-ms") p50[name] = $5
  }
  END {
    peer = p50["BenchmarkCreateToStart/peer_git_worktree_add"]
    print ""
    print "== create_task → agent start, 10,000-file repository, median =="
    printf "%-40s %8.1f ms  (target < 150 ms; %.2fx a bare git worktree add)\n", "create_task, warm worktree", p50["BenchmarkCreateToStart/pool"], p50["BenchmarkCreateToStart/pool"] / peer
    printf "%-40s %8.1f ms  (%.2fx a bare git worktree add)\n", "create_task, no warm worktree", p50["BenchmarkCreateToStart/no_pool"], p50["BenchmarkCreateToStart/no_pool"] / peer
    printf "%-40s %8.1f ms  (peer)\n", "git worktree add -b", peer
    dec = ns["BenchmarkIngest/peer_decode"]
    print ""
    print "== ingestion of 100,000 events =="
    printf "%-40s %8.2f s   (target < 2 s; %.2fx decoding the lines)\n", "agent stream, parsed and stored", ns["BenchmarkIngest/task"] / 1e9, ns["BenchmarkIngest/task"] / dec
    printf "%-40s %8.2f s   (%.2fx decoding the lines)\n", "AppendEvents of ready events", ns["BenchmarkIngest/store"] / 1e9, ns["BenchmarkIngest/store"] / dec
    printf "%-40s %8.2f s   (peer)\n", "json.Unmarshal of the same lines", dec / 1e9
    add = m["BenchmarkLoop/peer_git_worktree_add", "p50"]; gm = m["BenchmarkLoop/peer_git_merge", "p50"]
    print ""
    print "== the loop, through the binary, 10,000-file repository, median =="
    printf "%-40s %8.1f ms  (target < 300 ms; %.2fx a bare git worktree add)\n", "task start → agent\x27s first command", m["BenchmarkLoop/task", "start-p50"], m["BenchmarkLoop/task", "start-p50"] / add
    printf "%-40s %8.1f ms  (target < 300 ms)\n", "agent\x27s last output → report", m["BenchmarkLoop/task", "done-p50"]
    printf "%-40s %8.1f ms  (target < 300 ms; %.2fx a bare git merge)\n", "task merge, one-file change", m["BenchmarkLoop/task", "merge-p50"], m["BenchmarkLoop/task", "merge-p50"] / gm
    printf "%-40s %8.1f ms  (peer)\n", "git worktree add -b", add
    printf "%-40s %8.1f ms  (peer)\n", "git merge --no-ff", gm
    ready = ns["BenchmarkTaskList/peer_ready"]
    print ""
    print "== reading tasks, whole process, 100 tasks =="
    printf "%-40s %8.1f ms  (target < 50 ms; %.2fx sudocode ready)\n", "sudocode task list --json", ns["BenchmarkTaskList/task_list"] / 1e6, ns["BenchmarkTaskList/task_list"] / ready
    printf "%-40s %8.1f ms  (%.2fx sudocode ready)\n", "sudocode task show ID --json", ns["BenchmarkTaskList/task_show"] / 1e6, ns["BenchmarkTaskList/task_show"] / ready
    printf "%-40s %8.1f ms  (peer)\n", "sudocode ready --json", ready / 1e6
  }' "$out"
