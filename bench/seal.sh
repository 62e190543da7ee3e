#!/usr/bin/env bash
# What sealing costs (docs/design/transport-encryption.md), encrypted
# against clear in one run on the GPU machine, from the repository root
# with .bundle and .bundle-llama carried (scripts/pack-device-bundle.sh rc
# llama):
#
#   bash bench/seal.sh
#
# Two rc-servers on loopback tcp, both with a key file and the same
# manifests: "clear" (loopback is served in the clear) and "sealed" (started
# with RC_DEV_TRANSPORT_SEAL_LOOPBACK=1, so it seals as it would a client off
# this host), and "lanes256k": sealed, with sealed writes from 256 KiB on
# over the lanes (RC_DEV_TRANSPORT_SEALED_LANE_MIN=262144: a 1B token's 513 KB
# of logits sealed and opened by eight threads instead of one). Clients
# hold the key. Interleaved, each repetition its own process:
#   decode  llama-bench tg128 (-p 0 -n 128) of the 1B and 7B Q4_0 models
#   bulk    bench/copy_bandwidth.cu: 1 GiB cudaMemcpy H2D and D2H, pageable
#           and pinned (the lanes, 8 each way, carry it)
#   link    rc_transport_bench tcp readback 525312 (a 1B token's logits, a
#           sealed Write over the connection) and 256 MiB (sealed lanes),
#           with RC_BENCH_SEAL=1 and without
# Goals: decode sealed >= 0.98x clear; bulk sealed >= 10 GB/s.
#
#   REPS=3  MODELS="1b:q4_0 7b:q4_0" (empty: no decode)  MIB=1024
#
# Results in $OUT (the device tool's) or bench/out: seal-raw.txt and
# seal-summary.txt (medians and sealed/clear ratios).
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
REPS="${REPS:-3}"
MIB="${MIB:-1024}"
MODELS="${MODELS-1b:q4_0 7b:q4_0}"
RESULTS="${OUT:-$REPO/bench/out}"
mkdir -p "$RESULTS"
RAW="$RESULTS/seal-raw.txt"
: > "$RAW"
export WORK MODELS

# MODELS="" leaves decode out (no .bundle-llama needed).
steps=()
if [[ ! -x "$WORK/rc/bin/rc-server" ]] ||
   { [[ -n "$MODELS" ]] && [[ ! -x "$WORK/llama/bin/llama-bench" ]]; }; then
  steps+=(unpack)
fi
[[ -z "$MODELS" ]] || steps+=(models)
if [[ ${#steps[@]} -gt 0 ]]; then
  bash "$REPO/scripts/device-run.sh" "${steps[@]}" || { echo "seal.sh: setup failed"; exit 1; }
fi
RC_BIN="$WORK/rc/bin"; LL_BIN="$WORK/llama/bin"
COPY_BIN="$WORK/rc/bench/copy_bandwidth"
[[ -x "$COPY_BIN" ]] || { echo "seal.sh: no $COPY_BIN (carry .bundle, run unpack)"; exit 1; }
MANIFESTS=(--manifest "$COPY_BIN.rcm")
if [[ -n "$MODELS" ]]; then
  while read -r m; do MANIFESTS+=(--manifest "$m"); done < <(find "$LL_BIN" -maxdepth 1 -type f -name '*.rcm')
fi

KEYS="$(mktemp -d)/keys"
env LD_LIBRARY_PATH="$WORK/rc/lib" "$RC_BIN/rc-server" keygen "$KEYS" > /dev/null || exit 1
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$(dirname "$KEYS")"
}
trap cleanup EXIT

declare -A URL
MODES="clear sealed lanes256k"
for mode in $MODES; do
  URL[$mode]="tcp://127.0.0.1:$(( 20000 + RANDOM % 20000 ))"
  seal=1; [[ $mode == clear ]] && seal=0
  laneMin=1048576; [[ $mode == lanes256k ]] && laneMin=262144
  env LD_LIBRARY_PATH="$WORK/rc/lib" RC_DEV_TRANSPORT_SEAL_LOOPBACK=$seal \
    RC_DEV_TRANSPORT_SEALED_LANE_MIN=$laneMin \
    "$RC_BIN/rc-server" --listen "${URL[$mode]}" --auth-key-file "$KEYS" \
    "${MANIFESTS[@]}" --log-level debug > "$RESULTS/seal-server-$mode.log" 2>&1 &
  PIDS+=($!)
done
for _ in $(seq 300); do
  n=0
  for mode in $MODES; do grep -q "listening on" "$RESULTS/seal-server-$mode.log" && n=$((n + 1)); done
  (( n == 3 )) && break
  sleep 0.1
done

# $1 mode, then the command; its lines prefixed "mode what:".
client() {
  local mode="$1" what="$2"; shift 2
  env LD_LIBRARY_PATH="$LL_BIN:$WORK/rc/lib" RC_SERVER="${URL[$mode]}" \
    RC_AUTH_KEY_FILE="$KEYS" "$@" 2>&1 | sed "s/^/$mode $what: /" | tee -a "$RAW"
}

for rep in $(seq "$REPS"); do
  for m in $MODELS; do
    model="$WORK/models/${m%%:*}-${m##*:}.gguf"
    for mode in $MODES; do
      client "$mode" "decode-${m%%:*}" timeout 300 "$LL_BIN/llama-bench" \
        -m "$model" -ngl 99 -p 0 -n 128 -r 3 -o jsonl |
        grep -o '"avg_ts": *[0-9.]*' > /dev/null
    done
  done
  for mode in $MODES; do
    client "$mode" bulk timeout 300 "$COPY_BIN" "$MIB" 5 > /dev/null
  done
done
for mode in clear sealed; do
  seal=0; [[ $mode == sealed ]] && seal=1
  for bytes in 525312 $((256 << 20)); do
    env LD_LIBRARY_PATH="$WORK/rc/lib" RC_BENCH_SEAL=$seal \
      "$RC_BIN/rc_transport_bench" tcp readback "$bytes" 50 2>&1 |
      grep "RMA" | sed "s/^/$mode link: /" | tee -a "$RAW"
  done
done
# The sealed server must have sealed: its log says so for every session.
grep -c "connection sealed" "$RESULTS/seal-server-sealed.log" | sed 's/^/sealed sessions logged: /' | tee -a "$RAW"

# Medians per (mode, measurement), then sealed/clear.
awk '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
      if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : 0
  }
  $2 ~ /^decode-/ && /avg_ts/ {
    match($0, /"avg_ts": *[0-9.]+/); v = substr($0, RSTART, RLENGTH)
    sub(/.*: */, "", v); key = $2 " t/s"; vals[$1, key] = vals[$1, key] " " v; keys[key] = 1
  }
  $2 == "bulk:" && /GB\/s/ {
    key = "bulk " $3 " " $4; vals[$1, key] = vals[$1, key] " " $5; keys[key] = 1
  }
  $2 == "link:" && match($0, /RMA +[0-9]+ B: median +[0-9.]+ us/) {
    n = split(substr($0, RSTART, RLENGTH), p, " +")
    key = "link read-back " p[2] " B, us"; vals[$1, key] = vals[$1, key] " " p[5]; keys[key] = 1
  }
  END {
    printf "%-40s %10s %10s %7s %10s %7s\n", "measurement", "clear", "sealed",
           "ratio", "lanes256k", "ratio"
    for (k in keys) {
      c = median(vals["clear", k]); s = median(vals["sealed", k])
      l = median(vals["lanes256k", k])
      printf "%-40s %10.2f %10.2f %7.3f %10.2f %7.3f\n", k, c, s,
             c ? s / c : 0, l, c ? l / c : 0
    }
  }' "$RAW" | tee "$RESULTS/seal-summary.txt"
