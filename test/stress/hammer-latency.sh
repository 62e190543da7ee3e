#!/usr/bin/env bash
# A real client's connect and first call (rc_stress_client probe: connect,
# Hello, one cudaMalloc) against rc-server --test-device, first alone, then
# while peers that never become clients hammer the server
# (rc_stress_peers): transport connections that stay silent, ones that send
# part of a message and trickle the rest, and over tcp connect requests
# naming an address that never answers, over shm handshake sockets that
# say nothing. Prints the probe's median and worst time both ways.
#
#   test/stress/hammer-latency.sh [tcp|shm|both] [PROBES]   (both, 20)
#
# RC_BUILD_DIR and MANIFEST: common.sh. Exits 1 when the hammering adds more than
# 100 ms to the median.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
WHICH="${1:-both}"
PROBES="${2:-20}"
need "$SERVER" "$CLIENT" "$PEERS" "$MANIFEST"
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# PROBES probe times in ms, one a line, sorted.
probe_times() {
  for _ in $(seq "$PROBES"); do
    RC_SERVER="$1" "$CLIENT" probe | awk '/^probe:/ {print $2}'
    sleep 0.2
  done | sort -n
}
median() { awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
worst() { tail -1; }

run() {
  local transport=$1 url
  url=$(url_for "$transport" "rc-hammer-$$")
  start_server "$url" "$WORK/server.log"
  PIDS+=("$SERVER_PID")
  probe_times "$url" >"$WORK/alone"
  local seconds=$((PROBES * 2 + 30))
  "$PEERS" silent "$url" 8 "$seconds" >"$WORK/silent.out" 2>&1 &
  PIDS+=($!)
  "$PEERS" slow "$url" 4 "$seconds" >"$WORK/slow.out" 2>&1 &
  PIDS+=($!)
  if [ "$transport" = tcp ]; then
    "$PEERS" unreachable "$url" 4 "$seconds" >"$WORK/other.out" 2>&1 &
  else
    "$PEERS" shm-idle "$url" 16 "$seconds" >"$WORK/other.out" 2>&1 &
  fi
  PIDS+=($!)
  sleep 3 # let them pile up
  probe_times "$url" >"$WORK/hammered"
  local m0 m1 w0 w1
  m0=$(median <"$WORK/alone") w0=$(worst <"$WORK/alone")
  m1=$(median <"$WORK/hammered") w1=$(worst <"$WORK/hammered")
  printf '%s, %d probes (connect + Hello + first cudaMalloc, ms):\n' \
    "$transport" "$PROBES"
  printf '  %-44s median %8s   worst %8s\n' "alone" "$m0" "$w0"
  printf '  %-44s median %8s   worst %8s\n' \
    "with silent, slow and $([ "$transport" = tcp ] && echo unreachable || echo idle-socket) peers" \
    "$m1" "$w1"
  for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  PIDS=()
  awk -v a="$m0" -v b="$m1" 'BEGIN {exit !(b - a <= 100)}'
}

for_transports "$WHICH" "hammer-latency.sh [tcp|shm|both] [PROBES]"
