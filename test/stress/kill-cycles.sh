#!/usr/bin/env bash
# kill -9 cycles against rc-server --test-device: a client in the middle of
# its copies (rc_stress_client loop: pinned and pageable memory, both
# directions, RMA and upload-ring sizes) is killed at a random moment, over
# and over; then the server's resources are compared with before: /dev/shm
# files (libfabric regions PID:UID:INDEX, shared memory rc-host-*), the
# files the killed clients left, resident memory, open files, threads, and
# any thread above 50 % CPU.
#
#   test/stress/kill-cycles.sh [tcp|shm|both] [CYCLES]   (both, 1000)
#
# JOBS (default 1) clients are started and killed at once: on a machine
# with many cores, JOBS=8 runs 1000 cycles in a few minutes.
# RC_BUILD_DIR and MANIFEST: common.sh. Exits 1 when something did not come back:
# a file of a killed client, more region files of the server, open files
# or threads than at the start, 64 MiB more resident memory, or a
# spinning thread. Run it niced on a shared machine: nice -n 19 bash ...
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
WHICH="${1:-both}"
CYCLES="${2:-1000}"
JOBS="${JOBS:-1}"
need "$SERVER" "$CLIENT" "$MANIFEST"
WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill -INT "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

shm_files() { ls /dev/shm | grep -cE '^[0-9]+:[0-9]+:[0-9]+$|^rc-(host|ring)-' || true; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }
threads() { ls "/proc/$1/task" | wc -l; }
# Files /dev/shm still holds for the pids listed in $1.
left_by() {
  local n=0 pid
  while read -r pid; do
    n=$((n + $(ls /dev/shm | grep -c "^$pid:" || true)))
  done <"$1"
  echo "$n"
}
# Threads of $1 that used more than half a CPU over 2 s: "tid name pct".
spinning() {
  local pid=$1 hz; hz=$(getconf CLK_TCK)
  declare -A before
  local t
  for t in /proc/"$pid"/task/*; do
    before[$t]=$(awk '{print $14 + $15}' "$t/stat" 2>/dev/null || echo 0)
  done
  sleep 2
  for t in "${!before[@]}"; do
    local now; now=$(awk '{print $14 + $15}' "$t/stat" 2>/dev/null || echo 0)
    local pct=$(((now - before[$t]) * 100 / (2 * hz)))
    if ((pct > 50)); then
      echo "${t##*/} $(cat "$t/comm" 2>/dev/null) ${pct}%"
    fi
  done
}
live_sessions() {
  grep -o '"live_sessions":[0-9]*' "$WORK/metrics.json" 2>/dev/null |
    cut -d: -f2 || echo "?"
}
# Until the server has closed every session (tcp notices a killed client
# after the 2.5 s liveness window), at most 60 s; then the hello timeout
# (5 s) for connections of clients killed before their first message.
wait_idle() {
  for _ in $(seq 600); do
    [ "$(live_sessions)" = 0 ] && break
    sleep 0.1
  done
  [ "$(live_sessions)" = 0 ] ||
    echo "kill-cycles: sessions still open after 60 s: $(live_sessions)" >&2
  sleep 6
}

run() {
  local transport=$1 url
  url=$(url_for "$transport" "rc-kill-cycles-$$")
  start_server "$url" "$WORK/server.log" --metrics "$WORK/metrics.json"
  local pids="$WORK/clients.$transport"
  : >"$pids"
  cycle() { # one client, killed 0-500 ms into its copies
    local out="$WORK/client.$1.out"
    RC_SERVER="$url" "$CLIENT" loop "$1" >"$out" 2>&1 &
    local c=$!
    echo "$c" >>"$pids"
    for _ in $(seq 1000); do # at most 10 s to connect
      grep -q streaming "$out" 2>/dev/null && break
      kill -0 "$c" 2>/dev/null || break
      sleep 0.01
    done
    sleep "0.$(printf '%03d' $((SRANDOM % 500)))"
    if ! kill -9 "$c" 2>/dev/null; then
      echo "kill-cycles: client $c ended by itself: $(cat "$out")" >&2
    fi
    wait "$c" 2>/dev/null || true
    rm -f "$out"
  }
  # Warm-up, so that the start figures include the allocator's and the
  # provider's first-use growth.
  for i in $(seq 5); do cycle "$i"; done
  wait_idle
  local shm0 own0 rss0 fd0 th0
  shm0=$(shm_files) own0=$(left_by <(echo "$SERVER_PID"))
  rss0=$(rss_kb "$SERVER_PID") fd0=$(fds "$SERVER_PID")
  th0=$(threads "$SERVER_PID")
  local start=$SECONDS i=0 j group
  while ((i < CYCLES)); do
    group=()
    for ((j = 0; j < JOBS && i < CYCLES; j++)); do
      i=$((i + 1))
      cycle "$((i + 100))" &
      group+=($!)
    done
    wait "${group[@]}" # not the server, also a child of this shell
    if ((i % 100 < JOBS || i == CYCLES)); then
      echo "  $transport: $i cycles, $((SECONDS - start)) s, server RSS" \
        "$(($(rss_kb "$SERVER_PID") / 1024)) MiB, $(live_sessions) live"
    fi
  done
  wait_idle
  local shm1 own1 rss1 fd1 th1 left spin
  shm1=$(shm_files) own1=$(left_by <(echo "$SERVER_PID"))
  rss1=$(rss_kb "$SERVER_PID") fd1=$(fds "$SERVER_PID")
  th1=$(threads "$SERVER_PID") left=$(left_by "$pids")
  spin=$(spinning "$SERVER_PID")
  printf '%s, %d kill -9 cycles in %d s, %d at a time (rc-server pid %d):\n' \
    "$transport" "$CYCLES" "$((SECONDS - start))" "$JOBS" "$SERVER_PID"
  printf '  %-34s %10s %10s\n' "" before after
  printf '  %-34s %10d %10d\n' "/dev/shm files (all processes)" "$shm0" "$shm1"
  printf '  %-34s %10d %10d\n' "region files of the server" "$own0" "$own1"
  printf '  %-34s %10s %10d\n' "files left by the killed clients" - "$left"
  printf '  %-34s %10d %10d\n' "server RSS (MiB)" $((rss0 / 1024)) $((rss1 / 1024))
  printf '  %-34s %10d %10d\n' "server open files" "$fd0" "$fd1"
  printf '  %-34s %10d %10d\n' "server threads" "$th0" "$th1"
  printf '  %-34s %s\n' "threads above 50 % CPU" "${spin:-none}"
  local bad=0
  # /dev/shm as a whole is shared with whatever else runs: reported only.
  ((left == 0 && own1 <= own0 && fd1 <= fd0 && th1 <= th0)) || bad=1
  ((rss1 - rss0 <= 64 * 1024)) || bad=1
  [ -z "$spin" ] || bad=1
  kill -INT "$SERVER_PID"
  wait "$SERVER_PID" || true
  SERVER_PID=""
  return $bad
}

for_transports "$WHICH" "kill-cycles.sh [tcp|shm|both] [CYCLES]"
