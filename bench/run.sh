#!/usr/bin/env bash
# The performance harness, run on the GPU machine from the repository root
# with .bundle and .bundle-llama carried (scripts/pack-device-bundle.sh rc llama):
#
#   bash bench/run.sh
#
# llama-bench pp512 and tg128 with random-weight Q4_0 models, configurations
# interleaved in one session, each repetition its own process:
#   local   llama.cpp built with nvcc here (scripts/device-run.sh's ref step)
#   shm     the remote-clang build through rc-server over shm
#   tcp     the same over tcp (loopback)
#   tcp25   tcp with 25 us of emulated extra round-trip time (RC_DEV_EMULATE_RTT_US)
#   rpc     the nvcc build through llama.cpp's RPC backend (ggml-rpc-server)
# Remote runs also count round trips and bytes per decode token (RC_STATS,
# the difference of a 128- and a 64-token generation, divided by 64).
# Results: $BENCH_OUT (default $OUT if set, else bench/out): raw.jsonl,
# stats-*.json, then bench/report.py writes <date>-<gpu>.json, .md, .png.
#
#   REPS=5  INNER=5  MODELS="1b:q4_0 7b:q4_0"  CONFIGS="local shm tcp tcp25 rpc"
#
# One device call may not fit all repetitions (10 minutes a call): split them
# over calls on the same machine with the same BENCH_OUT, e.g.
#   BENCH_OUT=.device-work/bench REPS=3 STATS=0 bash bench/run.sh
#   BENCH_OUT=.device-work/bench REPS=2 REP_FROM=4 bash bench/run.sh
# (REP_FROM > 1 appends to raw.jsonl; STATS=0 skips the traffic runs).
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
REPS="${REPS:-5}"
REP_FROM="${REP_FROM:-1}"
# Runs of each test inside one llama-bench process (its -r; it reports their
# mean): a single pp512 run is one 15-55 ms step, and single runs of the
# local build alone spread over +-10 % (2026-11-24: 29.5k-35.4k t/s).
INNER="${INNER:-5}"
STATS="${STATS:-1}"
MODELS="${MODELS:-1b:q4_0 7b:q4_0}"
CONFIGS="${CONFIGS:-local shm tcp tcp25 rpc}"
RESULTS="${BENCH_OUT:-${OUT:-$REPO/bench/out}}"
mkdir -p "$RESULTS"
export WORK MODELS

# The builds and the models come from the llama.cpp device script.
steps=()
[[ -x "$WORK/llama/bin/llama-bench" ]] || steps+=(unpack)
[[ -x "$WORK/ref/bin/llama-bench" && -x "$WORK/ref/bin/ggml-rpc-server" ]] || steps+=(ref)
steps+=(models)
bash "$REPO/scripts/device-run.sh" "${steps[@]}" || { echo "bench: setup failed"; exit 1; }

RC_BIN="$WORK/rc/bin"; LL_BIN="$WORK/llama/bin"; REF_BIN="$WORK/ref/bin"
MANIFESTS=(); while read -r m; do MANIFESTS+=(--manifest "$m"); done < <(find "$LL_BIN" -maxdepth 1 -type f -name '*.rcm')
PIDS=()
# ggml-rpc-server can hang in its exit (seen on the H100: the bench then sat
# in `wait` until the device call's time limit): INT first, KILL after 5 s.
cleanup() {
  for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null; done
  for _ in $(seq 50); do
    local alive=0
    for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    (( alive )) || break
    sleep 0.1
  done
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  wait 2>/dev/null
}
trap cleanup EXIT

SHM_URL="shm://rc-bench-$$"
TCP_URL="tcp://127.0.0.1:$(( 20000 + RANDOM % 10000 ))"
RPC_PORT=$(( 40000 + RANDOM % 10000 ))
for url in "$SHM_URL" "$TCP_URL"; do
  log="$RESULTS/server-${url%%:*}.log"
  # --metrics: per-session server counters (replay time by command type),
  # for the per-token breakdown (docs/performance-measuring.md, "How to measure").
  env LD_LIBRARY_PATH="$WORK/rc/lib" "$RC_BIN/rc-server" --listen "$url" "${MANIFESTS[@]}" \
    --metrics "$RESULTS/metrics-${url%%:*}.json" > "$log" 2>&1 &
  PIDS+=($!)
done
"$REF_BIN/ggml-rpc-server" -H 127.0.0.1 -p "$RPC_PORT" > "$RESULTS/rpc-server.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 300); do
  grep -q "listening on" "$RESULTS/server-shm.log" && grep -q "listening on" "$RESULTS/server-tcp.log" && break
  sleep 0.1
done
sleep 1
head -2 "$RESULTS/server-shm.log"

# $1 config, then llama-bench arguments.
bench_cmd() {
  local cfg="$1"; shift
  case "$cfg" in
    local) "$REF_BIN/llama-bench" "$@" ;;
    shm|tcp|tcp25)
      local url="$SHM_URL" rtt=0
      [[ $cfg == tcp* ]] && url="$TCP_URL"
      [[ $cfg == tcp25 ]] && rtt=25
      env LD_LIBRARY_PATH="$LL_BIN:$WORK/rc/lib" RC_SERVER="$url" RC_DEV_EMULATE_RTT_US=$rtt \
        "$LL_BIN/llama-bench" "$@" ;;
    # The client sees no GPU of its own: every layer goes to the RPC server.
    rpc) env CUDA_VISIBLE_DEVICES= "$REF_BIN/llama-bench" --rpc "127.0.0.1:$RPC_PORT" "$@" ;;
  esac
}

export -f bench_cmd
export REF_BIN LL_BIN WORK SHM_URL TCP_URL RPC_PORT
(( REP_FROM > 1 )) || : > "$RESULTS/raw.jsonl"
for rep in $(seq "$REP_FROM" $(( REP_FROM + REPS - 1 ))); do
  echo "rep $rep starts at ${SECONDS}s"
  for m in $MODELS; do
    model="$WORK/models/${m%%:*}-${m##*:}.gguf"
    for cfg in $CONFIGS; do
      json="$(timeout 300 bash -c 'bench_cmd "$@"' _ "$cfg" -m "$model" -ngl 99 -p 512 -n 128 -r "$INNER" -o jsonl 2> "$RESULTS/last-$cfg.err")"
      if [[ -z "$json" ]]; then
        echo "bench: $cfg ${m} rep $rep produced nothing:"; tail -5 "$RESULTS/last-$cfg.err"; continue
      fi
      while read -r line; do
        [[ "$line" == "{"* ]] && echo "{\"config\":\"$cfg\",\"model\":\"${m%%:*}\",\"rep\":$rep,\"bench\":$line}" >> "$RESULTS/raw.jsonl"
      done <<< "$json"
      echo "rep $rep $m $cfg: $(grep -o '"avg_ts": *[0-9.]*' <<< "$json" | tr '\n' ' ')"
    done
  done
done

# Traffic per decode token: 128 minus 64 generated tokens, no prompt.
for m in $MODELS; do
  (( STATS )) || break
  model="$WORK/models/${m%%:*}-${m##*:}.gguf"
  for cfg in shm tcp tcp25; do
    [[ " $CONFIGS " == *" $cfg "* ]] || continue
    for n in 64 128; do
      RC_STATS="$RESULTS/stats-$cfg-${m%%:*}-$n.json" bench_cmd "$cfg" -m "$model" -ngl 99 -p 0 -n "$n" -r 1 -o jsonl > /dev/null 2>&1 ||
        echo "bench: stats run $cfg $m $n failed"
    done
  done
done

python3 "$REPO/bench/report.py" --raw "$RESULTS/raw.jsonl" --stats-dir "$RESULTS" \
  --gpu "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" --out-dir "$RESULTS"
