#!/usr/bin/env bash
# What sealing costs (docs/design/transport-encryption.md), sealed against
# clear in one run. On the GPU machine, from the repository root with
# .bundle carried (scripts/pack-device-bundle.sh rc; add llama and carry
# .bundle-llama for decode):
#
#   MODELS="" REPS=5 bash bench/seal.sh      # bulk and link, no decode
#   bash bench/seal.sh                       # with decode tg128 1B/7B
#
# Without a GPU (LINK_ONLY=1: the link measurements alone, from this
# checkout's build/bin):
#
#   LINK_ONLY=1 REPS=5 bash bench/seal.sh
#
# Three configs. rc-servers on loopback tcp, each with a key file and the
# same manifests: "clear" (loopback is served in the clear), "sealed"
# (RC_DEV_TRANSPORT_SEAL_LOOPBACK=1: sealed as a client off this host would be)
# and "lanes256k" (sealed, writes from 256 KiB on over the lanes,
# RC_DEV_TRANSPORT_SEALED_LANE_MIN=262144: a 1B token's 513 KB of logits sealed
# and opened by the lanes' threads instead of one). Clients hold the key.
# Interleaved, each repetition its own process:
#   decode  llama-bench tg128 (-p 0 -n 128) of the 1B and 7B Q4_0 models
#   bulk    bench/copy_bandwidth.cu: 1 GiB cudaMemcpy H2D and D2H, pageable
#           and pinned (the lanes, 8 each way, carry it)
#   link    rc_transport_bench tcp readback: 525312 B (a 1B token's logits;
#           median of 300) and 256 MiB (median of 10), the same three
#           configs by RC_BENCH_SEAL=1 and the lane minimum
# The bulk runs' CPU time by thread (the lanes' writers, readers and
# stages, of client and server) goes to seal-threads.txt (thread_cpu.py).
# Goals: bulk sealed >= 10 GB/s; 525312 B read-back sealed <= 1.1x clear;
# decode sealed >= 0.98x clear.
#
#   REPS=3  MODELS="1b:q4_0 7b:q4_0" (empty: no decode)  MIB=1024
#
# Results in $OUT (the device tool's) or bench/out: seal-raw.txt, the
# servers' logs, seal-summary.txt (median, min-max and x clear per
# measurement, and the goals) and <date>-<gpu>.json (bench/seal_report.py;
# copy it to bench/results/seal/).
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
REPS="${REPS:-3}"
MIB="${MIB:-1024}"
MODELS="${MODELS-1b:q4_0 7b:q4_0}"
LINK_ONLY="${LINK_ONLY:-0}"
RESULTS="${OUT:-$REPO/bench/out}"
mkdir -p "$RESULTS"
RAW="$RESULTS/seal-raw.txt"
: > "$RAW"
: > "$RESULTS/seal-threads.txt"
MODES="clear sealed lanes256k"
# What each config sets, on the server (bulk, decode) or the bench (link).
declare -A SEAL=([clear]=0 [sealed]=1 [lanes256k]=1)
declare -A LANE_MIN=([clear]=1048576 [sealed]=1048576 [lanes256k]=262144)

if [[ $LINK_ONLY == 1 ]]; then
  MODELS=""
  RC_BIN="${RC_BIN:-$REPO/build/bin}"
  RC_LIB="$REPO/build/lib"
  GPU="$(uname -n) (no GPU, link only)"
else
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
  RC_BIN="$WORK/rc/bin"; RC_LIB="$WORK/rc/lib"
  GPU="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
fi
[[ -x "$RC_BIN/rc_transport_bench" ]] || { echo "seal.sh: no $RC_BIN/rc_transport_bench"; exit 1; }
LL_BIN="$WORK/llama/bin"
COPY_BIN="$WORK/rc/bench/copy_bandwidth"

PIDS=()
KEYS=""
cleanup() {
  for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null; done
  wait 2>/dev/null
  [[ -z "$KEYS" ]] || rm -rf "$(dirname "$KEYS")"
}
trap cleanup EXIT

declare -A URL SERVER_PID
if [[ $LINK_ONLY != 1 ]]; then
  [[ -x "$COPY_BIN" ]] || { echo "seal.sh: no $COPY_BIN (carry .bundle, run unpack)"; exit 1; }
  MANIFESTS=(--manifest "$COPY_BIN.rcm")
  if [[ -n "$MODELS" ]]; then
    while read -r m; do MANIFESTS+=(--manifest "$m"); done < <(find "$LL_BIN" -maxdepth 1 -type f -name '*.rcm')
  fi
  KEYS="$(mktemp -d)/keys"
  env LD_LIBRARY_PATH="$RC_LIB" "$RC_BIN/rc-server" keygen "$KEYS" > /dev/null || exit 1
  for mode in $MODES; do
    URL[$mode]="tcp://127.0.0.1:$(( 20000 + RANDOM % 20000 ))"
    env LD_LIBRARY_PATH="$RC_LIB" RC_DEV_TRANSPORT_SEAL_LOOPBACK=${SEAL[$mode]} \
      RC_DEV_TRANSPORT_SEALED_LANE_MIN=${LANE_MIN[$mode]} \
      "$RC_BIN/rc-server" --listen "${URL[$mode]}" --auth-key-file "$KEYS" \
      "${MANIFESTS[@]}" --log-level debug > "$RESULTS/seal-server-$mode.log" 2>&1 &
    PIDS+=($!)
    SERVER_PID[$mode]=$!
  done
  for _ in $(seq 300); do
    n=0
    for mode in $MODES; do grep -q "listening on" "$RESULTS/seal-server-$mode.log" && n=$((n + 1)); done
    (( n == 3 )) && break
    sleep 0.1
  done
fi

# $1 mode, then the command; its lines prefixed "mode what:".
client() {
  local mode="$1" what="$2"; shift 2
  env LD_LIBRARY_PATH="$LL_BIN:$RC_LIB" RC_SERVER="${URL[$mode]}" \
    RC_AUTH_KEY_FILE="$KEYS" "$@" 2>&1 | sed "s/^/$mode $what: /" | tee -a "$RAW"
}

# One read-back of each size on the link alone, per config.
link() {
  local mode="$1"
  for sizeIters in "525312 300" "$((256 << 20)) 10"; do
    set -- $sizeIters
    env LD_LIBRARY_PATH="$RC_LIB" RC_BENCH_SEAL=${SEAL[$mode]} \
      RC_DEV_TRANSPORT_SEALED_LANE_MIN=${LANE_MIN[$mode]} \
      "$RC_BIN/rc_transport_bench" tcp readback "$1" "$2" 2>&1 |
      grep "RMA" | sed "s/^/$mode link: /" | tee -a "$RAW"
  done
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
  if [[ $LINK_ONLY != 1 ]]; then
    for mode in $MODES; do
      client "$mode" bulk timeout 300 python3 "$REPO/bench/thread_cpu.py" \
        --also "${SERVER_PID[$mode]}" --label "$mode rep$rep" \
        --out "$RESULTS/seal-threads.txt" -- "$COPY_BIN" "$MIB" 5 > /dev/null
    done
  fi
  for mode in $MODES; do link "$mode" > /dev/null; done
done
if [[ $LINK_ONLY != 1 ]]; then
  # The sealed servers must have sealed: their logs say so for every session.
  for mode in sealed lanes256k; do
    grep -c "connection sealed" "$RESULTS/seal-server-$mode.log" |
      sed "s/^/$mode sessions sealed: /" | tee -a "$RAW"
  done
fi

COMMAND="REPS=$REPS MIB=$MIB MODELS=\"$MODELS\" LINK_ONLY=$LINK_ONLY bash bench/seal.sh"
python3 "$REPO/bench/seal_report.py" --raw "$RAW" --out "$RESULTS" --gpu "$GPU" \
  --command "$COMMAND" \
  --note "client and server on one host ($(nproc) cpus): both ends' sealing and opening share its cores"
