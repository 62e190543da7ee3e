#!/usr/bin/env bash
# Launches per second of one process's host threads, each launching and
# copying on a stream of its own (bench/host_threads.cu), with 1, 2, 4 and 8
# threads: local CUDA (nvcc build) against the same program through
# rc-server over shm and tcp, in one run. What it answers: whether a
# multi-threaded program's threads go faster together remotely as they do
# locally, or wait for each other in the client runtime. On the GPU
# machine from the repository root after `scripts/device-run.sh unpack`
# with .bundle carried:
#
#   bash bench/host-threads.sh
#
#   THREADS="1 2 4 8"  REPS=3  SECONDS_EACH=2  PER_SYNC=16
#   CONFIGS="local shm tcp"
# Results in $OUT (or bench/out): host-threads-raw.jsonl, then
# bench/host_threads_report.py's host-threads/<date>-<gpu>.{json,md}: per
# configuration and count the median launches/s of REPS with min and max,
# the ratio to local at that count and to the configuration's 1 thread.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
THREADS="${THREADS:-1 2 4 8}"
REPS="${REPS:-3}"
SECONDS_EACH="${SECONDS_EACH:-2}"
PER_SYNC="${PER_SYNC:-16}"
CONFIGS="${CONFIGS:-local shm tcp}"
RESULTS="${OUT:-$REPO/bench/out}"
RUNS="$(mktemp -d /tmp/rc-host-threads.XXXXXX)"
mkdir -p "$RESULTS"
RAW="$RESULTS/host-threads-raw.jsonl"
: > "$RAW"
export PATH="/usr/local/cuda/bin:$PATH"
SERVER_PID=""
cleanup() {
  [[ -n "$SERVER_PID" ]] && kill -INT "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$RUNS"
}
trap cleanup EXIT

LOCAL_BIN="$RUNS/host_threads"
nvcc -O2 -arch=sm_90 -I"$REPO/bench" "$REPO/bench/host_threads.cu" -o "$LOCAL_BIN" || exit 1
REMOTE_BIN="$WORK/rc/bench/host_threads"
[[ -x "$REMOTE_BIN" ]] || { echo "host-threads.sh: no $REMOTE_BIN (carry .bundle, run unpack)"; exit 1; }

# $1 config, $2 rep, then the command: its JSON lines into $RAW, tagged.
run() {
  local cfg="$1" rep="$2"; shift 2
  # shellcheck disable=SC2086
  "$@" "$SECONDS_EACH" "$PER_SYNC" $THREADS 2> "$RUNS/$cfg-$rep.err" |
    python3 -c "
import json, sys
for line in sys.stdin:
    row = json.loads(line)
    row.update(config='$cfg', rep=$rep)
    print(json.dumps(row))" | tee -a "$RAW"
  [[ ${PIPESTATUS[0]} == 0 ]] || { echo "host-threads: $cfg rep $rep failed:"; tail -3 "$RUNS/$cfg-$rep.err"; }
}

for cfg in $CONFIGS; do
  case "$cfg" in
    local)
      for ((r = 0; r < REPS; r++)); do run local "$r" "$LOCAL_BIN"; done ;;
    shm|tcp)
      if [[ $cfg == shm ]]; then url="shm://rc-host-threads-$$"
      else url="tcp://127.0.0.1:$(( 20000 + RANDOM % 20000 ))"; fi
      log="$RESULTS/host-threads-server-$cfg.log"
      LD_LIBRARY_PATH="$WORK/rc/lib" "$WORK/rc/bin/rc-server" --listen "$url" \
        --manifest "$REMOTE_BIN.rcm" > "$log" 2>&1 &
      SERVER_PID=$!
      for _ in $(seq 600); do grep -q "listening on" "$log" && break; sleep 0.1; done
      grep -q "listening on" "$log" || { echo "host-threads: rc-server did not start ($cfg):"; tail -5 "$log"; continue; }
      for ((r = 0; r < REPS; r++)); do
        run "$cfg" "$r" env RC_SERVER="$url" LD_LIBRARY_PATH="$WORK/rc/lib" "$REMOTE_BIN"
      done
      kill -INT "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID="" ;;
    *) echo "host-threads: unknown config '$cfg' (local, shm, tcp)" ;;
  esac
done
python3 "$REPO/bench/host_threads_report.py" --raw "$RAW" --out "$RESULTS" \
  --gpu "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
  --setup "one process, N host threads each launching one-thread kernels on its own stream with a 8-byte read-back and sync every $PER_SYNC launches, ${SECONDS_EACH} s per count, $REPS reps; remote through rc-server over shm and loopback tcp (bench/host-threads.sh)"
