#!/usr/bin/env bash
# Several clients' kernels on one GPU, without llama.cpp
# (docs/design/gpu-sharing.md): N processes of bench/sharing_kernels.cu
# (many short kernels of 4 blocks each, a synchronization after every 4)
# start at the same instant and run SECONDS; the aggregate is all their
# kernels over SECONDS. On the GPU machine from the repository root after
# `scripts/device-run.sh unpack` with .bundle carried:
#
#   bash bench/gpu-sharing.sh
#
# Configurations ($CONFIGS): local (nvcc-built processes, time-sliced),
# local-mps (the same under an MPS daemon of the bench's own:
# bench/mps-local.sh), and rc-server over shm as ISOLATION-SHARING:
# none-timeslice, none-mps, process-timeslice, process-mps (--isolation,
# --gpu-sharing; process-* with a warm worker per client).
#   CLIENTS="1 2 4 8 16"  REPS=3  SECONDS_EACH=3  BLOCKS=4 PER_SYNC=4
#   ITERS=20000 (the kernels' length)
# Results in $OUT (or bench/out): gpu-sharing-raw.jsonl, then
# bench/gpu_sharing_report.py's <date>-<gpu>-gpu-sharing.{json,md}: per
# configuration and count the median of REPS with its min and max, and
# the ratios to local and local-mps.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
CLIENTS="${CLIENTS:-1 2 4 8 16}"
REPS="${REPS:-3}"
SECONDS_EACH="${SECONDS_EACH:-3}"
BLOCKS="${BLOCKS:-4}" PER_SYNC="${PER_SYNC:-4}" ITERS="${ITERS:-20000}"
CONFIGS="${CONFIGS:-local local-mps none-timeslice none-mps process-timeslice process-mps}"
RESULTS="${OUT:-$REPO/bench/out}"
RUNS="$(mktemp -d /tmp/rc-gpu-sharing.XXXXXX)"
mkdir -p "$RESULTS"
RAW="$RESULTS/gpu-sharing-raw.jsonl"
: > "$RAW"
export PATH="/usr/local/cuda/bin:$PATH"
source "$REPO/bench/mps-local.sh"
SERVER_PID=""
cleanup() {
  [[ -n "$SERVER_PID" ]] && kill -INT "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  mps_local_stop
  rm -rf "$RUNS"
}
trap cleanup EXIT
mps_local_check_system

LOCAL_BIN="$RUNS/sharing_kernels"
nvcc -O2 -arch=sm_90 -I"$REPO/bench" "$REPO/bench/sharing_kernels.cu" -o "$LOCAL_BIN" || exit 1
REMOTE_BIN="$WORK/rc/bench/sharing_kernels"
[[ -x "$REMOTE_BIN" ]] || { echo "gpu-sharing.sh: no $REMOTE_BIN (carry .bundle, run unpack)"; exit 1; }

# $1 config, $2 clients, $3 rep, then the environment and the binary: the
# clients start at one instant; one JSON line into $RAW.
run_clients() {
  local cfg="$1" n="$2" rep="$3" i pids=() start failed=0 lead; shift 3
  # Time for every client to start and make its context (a session over
  # shm; under --isolation process a worker of its own) before the start.
  lead=$(( 2000 + 150 * n ))
  start="$(python3 -c "import time; print(time.monotonic_ns() + $lead * 1000000)")"
  for ((i = 0; i < n; i++)); do
    "$@" "$start" "$SECONDS_EACH" "$BLOCKS" "$PER_SYNC" "$ITERS" \
      > "$RUNS/$cfg-n$n-r$rep-c$i.json" 2> "$RUNS/$cfg-n$n-r$rep-c$i.err" &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { failed=$((failed + 1)); tail -3 "$RUNS/$cfg-n$n-r$rep-c$i.err"; }
  done
  python3 "$REPO/bench/gpu_sharing_report.py" --runs "$RUNS" --config "$cfg" \
    --clients "$n" --rep "$rep" --seconds "$SECONDS_EACH" --failed "$failed" >> "$RAW"
  tail -1 "$RAW"
}

for cfg in $CONFIGS; do
  case "$cfg" in
    local)
      for n in $CLIENTS; do for ((r = 0; r < REPS; r++)); do
        run_clients "$cfg" "$n" "$r" "$LOCAL_BIN"
      done; done ;;
    local-mps)
      mps_local_start || continue
      for n in $CLIENTS; do for ((r = 0; r < REPS; r++)); do
        # shellcheck disable=SC2046
        run_clients "$cfg" "$n" "$r" env $(mps_local_env) "$LOCAL_BIN"
      done; done
      mps_local_stop ;;
    *-*)
      isolation="${cfg%%-*}" sharing="${cfg##*-}"
      for n in $CLIENTS; do
        url="shm://rc-sharing-$$-$n"
        opts=(--isolation "$isolation" --gpu-sharing "$sharing")
        [[ $isolation == process ]] && opts+=(--warm-workers "$n" --max-workers "$(( n > 32 ? n : 32 ))")
        log="$RESULTS/gpu-sharing-server-$cfg-n$n.log"
        LD_LIBRARY_PATH="$WORK/rc/lib" "$WORK/rc/bin/rc-server" --listen "$url" \
          --manifest "$REMOTE_BIN.rcm" "${opts[@]}" > "$log" 2>&1 &
        SERVER_PID=$!
        for _ in $(seq 600); do grep -q "listening on" "$log" && break; sleep 0.1; done
        grep -q "listening on" "$log" || { echo "gpu-sharing: rc-server did not start ($cfg):"; tail -5 "$log"; kill "$SERVER_PID"; SERVER_PID=""; continue; }
        grep -E "sessions share the GPU|MPS not available" "$log" | head -1
        # Every warm worker ready (each makes a context) before the clients.
        [[ $isolation == process ]] && sleep $(( 2 + n / 4 ))
        for ((r = 0; r < REPS; r++)); do
          run_clients "$cfg" "$n" "$r" env RC_SERVER="$url" LD_LIBRARY_PATH="$WORK/rc/lib" "$REMOTE_BIN"
          [[ $isolation == process ]] && sleep $(( 1 + n / 4 )) # the pool refills
        done
        kill -INT "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
      done ;;
  esac
done
python3 "$REPO/bench/gpu_sharing_report.py" --raw "$RAW" --out "$RESULTS" \
  --gpu "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
  --setup "N clients of bench/sharing_kernels.cu (kernels of $BLOCKS blocks x 128 threads, $ITERS FMAs a thread, a sync after every $PER_SYNC) for ${SECONDS_EACH} s each, $REPS reps; remote over shm (bench/gpu-sharing.sh)"
