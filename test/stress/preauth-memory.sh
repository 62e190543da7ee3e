#!/usr/bin/env bash
# What peers that never authenticate make rc-server hold. Against
# rc-server --test-device --auth-key-file, N peers finish the transport
# handshake and then say nothing (rc_stress_peers silent: with keys the
# handshake ends in an admission challenge they never answer, asked again
# before it lapses) for SECONDS; the script samples the server's resident
# memory every 0.2 s and prints, per transport and N: its resident memory
# before, the peak while the peers ran (it includes the probe's own
# session), the growth per peer, and a real client's connect + Hello +
# first cudaMalloc (rc_stress_client probe, with the key) alone and
# meanwhile.
#
#   test/stress/preauth-memory.sh [tcp|shm|both] [N...]   (both, 100 1000)
#
# PEER_SECONDS (20); RC_BUILD_DIR and MANIFEST: common.sh. The peers' own
# process holds an endpoint per peer (tcp ~35 MiB, shm ~6 MiB each): run
# 1000 only where that fits. Exits 1 when a probe beside the peers fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
WHICH="${1:-both}"
shift || true
if [ $# -gt 0 ]; then COUNTS=("$@"); else COUNTS=(100 1000); fi
SECONDS_EACH="${PEER_SECONDS:-20}"
need "$SERVER" "$CLIENT" "$PEERS" "$MANIFEST"
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
"$SERVER" keygen "$WORK/key" >/dev/null

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# The largest VmRSS of pid $1 while pid $2 runs, in KiB.
peak_while() {
  local peak=0 now
  while kill -0 "$2" 2>/dev/null; do
    now=$(rss_kib "$1")
    [ "$now" -gt "$peak" ] && peak=$now
    sleep 0.2
  done
  echo "$peak"
}

probe_ms() {
  RC_SERVER="$1" RC_AUTH_KEY_FILE="$WORK/key" "$CLIENT" probe |
    awk '/^probe:/ {print $2}'
}

run() {
  local transport=$1 n url
  for n in "${COUNTS[@]}"; do
    url=$(url_for "$transport" "rc-preauth-$$-$n")
    start_server "$url" "$WORK/server.log" --auth-key-file "$WORK/key"
    PIDS+=("$SERVER_PID")
    sleep 1
    local before alone during peak peers_pid
    before=$(rss_kib "$SERVER_PID")
    alone=$(probe_ms "$url" || echo failed)
    "$PEERS" silent "$url" "$n" "$SECONDS_EACH" >"$WORK/peers.out" 2>&1 &
    peers_pid=$!
    PIDS+=("$peers_pid")
    peak_while "$SERVER_PID" "$peers_pid" >"$WORK/peak" &
    local sampler=$!
    sleep $((SECONDS_EACH / 2))
    during=$(probe_ms "$url" || echo failed)
    wait "$sampler" || true
    peak=$(cat "$WORK/peak")
    printf '%s, %5d silent peers for %ss: rc-server %6d MiB before, peak %6d MiB' \
      "$transport" "$n" "$SECONDS_EACH" $((before / 1024)) $((peak / 1024))
    printf ' (+%d MiB; %.2f MiB per peer);' \
      $(((peak - before) / 1024)) \
      "$(awk -v d=$((peak - before)) -v n="$n" 'BEGIN {print d / 1024 / n}')"
    printf ' probe %s ms alone, %s ms beside them (%s)\n' "$alone" "$during" \
      "$(tail -1 "$WORK/peers.out")"
    kill -INT "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    PIDS=()
    [ "$during" != failed ] || return 1
  done
}

for_transports "$WHICH" "preauth-memory.sh [tcp|shm|both] [N...]"
