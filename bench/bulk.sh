#!/usr/bin/env bash
# Bulk copy bandwidth, local vs remote (the "copy" rows of issue 26's
# results), run on the GPU machine from the repository root after
# `scripts/device-run.sh unpack` with .bundle carried:
#
#   bash bench/bulk.sh
#
# bench/copy_bandwidth.cu, built here with nvcc (local) and by remote-clang
# (the bundle's $WORK/rc/bench/copy_bandwidth): synchronous cudaMemcpy of
# $MIB MiB (default 1024), median of $REPS (5), one stream, from and to
# pageable and pinned (cudaMallocHost) memory. Remote over shm, tcp (8 lanes,
# the default), tcp over one stream (RC_TCP_LANES=0) and 4 and 16 lanes, and
# tcp with a 3 and a 12 GB/s link emulated (RC_EMULATE_GBPS: 25 and 100 GbE).
# Beside them, rc_transport_bench's 256 MiB read-backs: by RMA (the lanes)
# and over one plain loopback TCP socket, the kernel's one-stream rate.
# Results in $OUT (the device tool's) or bench/out: bulk-raw.txt, and
# bench/bulk_report.py's <date>-<gpu>-bulk.json and .md.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
MIB="${MIB:-1024}"
REPS="${REPS:-5}"
RESULTS="${OUT:-$REPO/bench/out}"
mkdir -p "$RESULTS"
RAW="$RESULTS/bulk-raw.txt"
: > "$RAW"
export PATH="/usr/local/cuda/bin:$PATH"
LOCAL_BIN=/tmp/rc-bulk-copy-bandwidth
nvcc -O2 -arch=sm_90 "$REPO/bench/copy_bandwidth.cu" -o "$LOCAL_BIN" || exit 1
REMOTE_BIN="$WORK/rc/bench/copy_bandwidth"
[[ -x "$REMOTE_BIN" ]] || { echo "bulk.sh: no $REMOTE_BIN (carry .bundle, run unpack)"; exit 1; }

# One configuration's run, its lines prefixed with the configuration.
run() { # name command...
  local name="$1"; shift
  "$@" "$MIB" "$REPS" 2>&1 | sed "s/^/$name: /" | tee -a "$RAW"
}

run local "$LOCAL_BIN"
for transport in shm tcp; do
  case "$transport" in
    shm) url="shm://rc-bulk-$$" ;;
    tcp) url="tcp://127.0.0.1:$(( 20000 + RANDOM % 20000 ))" ;;
  esac
  # The server grants as many lanes as a client asks for, up to 16.
  env LD_LIBRARY_PATH="$WORK/rc/lib" RC_TCP_LANES=16 \
    "$WORK/rc/bin/rc-server" --listen "$url" \
    --manifest "$REMOTE_BIN.rcm" > "$RESULTS/bulk-server-$transport.log" 2>&1 &
  server=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$RESULTS/bulk-server-$transport.log" && break
    sleep 0.1
  done
  client=(env RC_SERVER="$url" LD_LIBRARY_PATH="$WORK/rc/lib")
  run "$transport" "${client[@]}" "$REMOTE_BIN"
  if [[ "$transport" == tcp ]]; then
    run tcp-1stream "${client[@]}" RC_TCP_LANES=0 "$REMOTE_BIN"
    run tcp-4lanes "${client[@]}" RC_TCP_LANES=4 "$REMOTE_BIN"
    run tcp-16lanes "${client[@]}" RC_TCP_LANES=16 "$REMOTE_BIN"
    run tcp-3gbps "${client[@]}" RC_EMULATE_GBPS=3 "$REMOTE_BIN"
    run tcp-12gbps "${client[@]}" RC_EMULATE_GBPS=12 "$REMOTE_BIN"
  fi
  kill -INT "$server"; wait "$server" 2>/dev/null
done
for lanes in 8 0; do
  env LD_LIBRARY_PATH="$WORK/rc/lib" RC_TCP_LANES=$lanes \
    "$WORK/rc/bin/rc_transport_bench" tcp readback $((256 << 20)) 20 2>&1 |
    sed "s/^/readback-lanes$lanes: /" | tee -a "$RAW"
done
python3 "$REPO/bench/bulk_report.py" --raw "$RAW" --out "$RESULTS" \
  --gpu "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
  --mib "$MIB" --reps "$REPS"
