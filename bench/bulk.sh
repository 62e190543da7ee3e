#!/usr/bin/env bash
# Bulk copy bandwidth, local vs remote (the "copy" rows of
# bench/results/bulk/), run on the GPU machine from the repository root after
# `scripts/device-run.sh unpack` with .bundle carried:
#
#   bash bench/bulk.sh
#
# bench/copy_bandwidth.cu, built here with nvcc (local) and by remote-clang
# (the bundle's $WORK/rc/bench/copy_bandwidth): synchronous cudaMemcpy of
# $MIB MiB (default 1024), median of $REPS (5), one stream, from and to
# pageable and pinned (cudaMallocHost) memory. Remote over shm, tcp (8 lanes,
# the default), tcp over one stream (RC_DEV_TCP_LANES=0) and 4 and 16 lanes, and
# tcp with a 3 and a 12 GB/s link emulated (RC_DEV_EMULATE_GBPS: 25 and 100 GbE).
# Beside them, rc_transport_bench's 256 MiB read-backs: by RMA (the lanes)
# and over one plain loopback TCP socket, the kernel's one-stream rate.
# bench/copy_streams.cu, built the same two ways, runs local, over shm and
# over tcp (default lanes): cudaMemcpyAsync of 64 KiB to $MIB MiB over 1, 2
# and 4 streams (pinned), cudaMemcpy of the same sizes (pageable), and 4
# streams overlapping copies in, a kernel and copies out; one rc-server
# serves both programs (--manifest of each).
# TRANSPORTS picks among shm, tcp and shm-multipath (default: all there are).
# Results in $OUT (the device tool's) or bench/out: bulk-raw.txt, and
# bench/bulk_report.py's bulk/<date>-<gpu>.json and .md.
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
LOCAL_STREAMS_BIN=/tmp/rc-bulk-copy-streams
nvcc -O2 -arch=sm_90 "$REPO/bench/copy_bandwidth.cu" -o "$LOCAL_BIN" || exit 1
nvcc -O2 -arch=sm_90 "$REPO/bench/copy_streams.cu" -o "$LOCAL_STREAMS_BIN" || exit 1
REMOTE_BIN="$WORK/rc/bench/copy_bandwidth"
REMOTE_STREAMS_BIN="$WORK/rc/bench/copy_streams"
for bin in "$REMOTE_BIN" "$REMOTE_STREAMS_BIN"; do
  [[ -x "$bin" ]] || { echo "bulk.sh: no $bin (carry .bundle, run unpack)"; exit 1; }
done

# One configuration's run, its lines prefixed with the configuration.
run() { # name command...
  local name="$1"; shift
  "$@" "$MIB" "$REPS" 2>&1 | sed "s/^/$name: /" | tee -a "$RAW"
}

run local "$LOCAL_BIN"
run local "$LOCAL_STREAMS_BIN"
# shm-multipath: shm with rc-server's multipath copies (RC_SERVER_MULTIPATH),
# where there are two GPUs.
if [[ -z "${TRANSPORTS:-}" ]]; then
  TRANSPORTS="shm tcp"
  (( $(nvidia-smi -L | wc -l) >= 2 )) && TRANSPORTS+=" shm-multipath"
fi
for transport in $TRANSPORTS; do
  multipath=0
  case "$transport" in
    shm) url="shm://rc-bulk-$$" ;;
    shm-multipath) url="shm://rc-bulk-mp-$$"; multipath=1 ;;
    tcp) url="tcp://127.0.0.1:$(( 20000 + RANDOM % 20000 ))" ;;
  esac
  # The server grants as many lanes as a client asks for, up to 16.
  env LD_LIBRARY_PATH="$WORK/rc/lib" RC_DEV_TCP_LANES=16 RC_SERVER_MULTIPATH=$multipath \
    "$WORK/rc/bin/rc-server" --listen "$url" \
    --manifest "$REMOTE_BIN.rcm" --manifest "$REMOTE_STREAMS_BIN.rcm" \
    > "$RESULTS/bulk-server-$transport.log" 2>&1 &
  server=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$RESULTS/bulk-server-$transport.log" && break
    sleep 0.1
  done
  client=(env RC_SERVER="$url" LD_LIBRARY_PATH="$WORK/rc/lib")
  run "$transport" "${client[@]}" "$REMOTE_BIN"
  run "$transport" "${client[@]}" "$REMOTE_STREAMS_BIN"
  if [[ "$transport" == tcp ]]; then
    run tcp-1stream "${client[@]}" RC_DEV_TCP_LANES=0 "$REMOTE_BIN"
    run tcp-4lanes "${client[@]}" RC_DEV_TCP_LANES=4 "$REMOTE_BIN"
    run tcp-16lanes "${client[@]}" RC_DEV_TCP_LANES=16 "$REMOTE_BIN"
    run tcp-3gbps "${client[@]}" RC_DEV_EMULATE_GBPS=3 "$REMOTE_BIN"
    run tcp-12gbps "${client[@]}" RC_DEV_EMULATE_GBPS=12 "$REMOTE_BIN"
  fi
  kill -INT "$server"; wait "$server" 2>/dev/null
done
for lanes in 8 0; do
  env LD_LIBRARY_PATH="$WORK/rc/lib" RC_DEV_TCP_LANES=$lanes \
    "$WORK/rc/bin/rc_transport_bench" tcp readback $((256 << 20)) 20 2>&1 |
    sed "s/^/readback-lanes$lanes: /" | tee -a "$RAW"
done
python3 "$REPO/bench/bulk_report.py" --raw "$RAW" --out "$RESULTS" \
  --gpu "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
  --mib "$MIB" --reps "$REPS"
