#!/usr/bin/env bash
# A cuBLAS GEMM loop (cuda-samples' matrixMulCUBLAS: 30 timed SGEMMs between
# two events; -sizemult=5 multiplies 640x480 by 480x320) locally and
# remotely over shm and tcp, side by side on the GPU machine, with what
# bounds the remote one: rc-server's steady time per GEMM command
# (--metrics: (ns - max_ns) / (count - 1), the first GEMM of a session
# loading cuBLAS's kernels) and the client's traffic (RC_STATS). Needs the
# compat build on the machine first (device-run.sh unpack compat-local with
# .bundle-compat-src, then unpack with .bundle and .bundle-compat):
#
#   bash bench/gemm-loop.sh        REPS=5 (runs per configuration)
#                                  SIZEMULTS="5 10" (the sample's -sizemult)
#
# Prints one line per run (GFlop/s as the sample reports it) and the ratios
# of the medians; files under $OUT (or $WORK/out)/gemm-loop.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
REPS="${REPS:-5}"
SIZEMULTS="${SIZEMULTS:-5 10}"
RESULTS="${OUT:-$WORK/out}/gemm-loop"
mkdir -p "$RESULTS"

local_exe="$(find "$WORK/compat/local" -name matrixMulCUBLAS -type f -perm -u+x | head -1)"
remote_exe="$(find "$WORK/compat/remote" -name matrixMulCUBLAS -type f -perm -u+x | head -1)"
[[ -x "$local_exe" && -x "$remote_exe" ]] ||
  { echo "gemm-loop: matrixMulCUBLAS not built here (see the header)"; exit 1; }
manifests=() # none when the sample has no kernels of its own (only cuBLAS's)
for m in "$(dirname "$remote_exe")"/*.rcm; do [[ -f $m ]] && manifests+=(--manifest "$m"); done
rc_lib="$WORK/rc/lib:$WORK/compat/remote/lib"

gflops() { sed -n 's/.*Performance= *\([0-9.]*\) GFlop\/s.*/\1/p' "$1" | head -1; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : 0)}'; }

run_local() { # sizemult
  local i out
  for ((i = 1; i <= REPS; i++)); do
    out="$RESULTS/local-$1-$i.log"
    (cd "$(dirname "$local_exe")" && "$local_exe" -sizemult="$1") > "$out" 2>&1
    echo "sizemult $1 local run $i: $(gflops "$out") GFlop/s"
  done
}

run_remote() { # transport sizemult
  local t="$1" s="$2" url i out server
  [[ $t == shm ]] && url="shm://rc-gemm-$$" || url="tcp://127.0.0.1:23990"
  LD_LIBRARY_PATH="$WORK/rc/lib" "$WORK/rc/bin/rc-server" --listen "$url" \
    --metrics "$RESULTS/metrics-$t-$s.json" "${manifests[@]}" > "$RESULTS/server-$t-$s.log" 2>&1 &
  server=$!
  for _ in $(seq 200); do grep -q "listening on" "$RESULTS/server-$t-$s.log" && break; sleep 0.05; done
  for ((i = 1; i <= REPS; i++)); do
    out="$RESULTS/$t-$s-$i.log"
    (cd "$(dirname "$remote_exe")" &&
      RC_SERVER="$url" RC_STATS="$RESULTS/stats-$t-$s-$i.json" LD_LIBRARY_PATH="$rc_lib" \
        "$remote_exe" -sizemult="$s") > "$out" 2>&1
    echo "sizemult $s $t run $i: $(gflops "$out") GFlop/s"
  done
  kill -INT "$server" 2>/dev/null
  wait "$server"
  python3 - "$RESULTS/metrics-$t-$s.json" "$RESULTS/stats-$t-$s-1.json" "$t" "$s" <<'PY'
import json, statistics, sys
m = json.load(open(sys.argv[1]))
steady = []
for s in m["sessions"]:
    g = s.get("commands_by_type", {}).get("CublasGemm")
    if g and g["count"] > 1:
        steady.append((g["ns"] - g["max_ns"]) / (g["count"] - 1) / 1e3)
st = json.load(open(sys.argv[2]))
print("sizemult %s %s: rc-server replays a GEMM command in %.1f us (median of "
      "%d sessions, first GEMM left out); client: %d messages, %.1f commands "
      "per batch, %d round trips" % (sys.argv[4], sys.argv[3],
      statistics.median(steady) if steady else 0, len(steady), st["messages"],
      st["commands_per_batch"], st["round_trips"]))
PY
}

for s in $SIZEMULTS; do
  run_local "$s"
  run_remote shm "$s"
  run_remote tcp "$s"
done | tee "$RESULTS/summary.txt"
for s in $SIZEMULTS; do
  l="$(grep "^sizemult $s local run" "$RESULTS/summary.txt" | awk '{print $6}' | median)"
  for t in shm tcp; do
    r="$(grep "^sizemult $s $t run" "$RESULTS/summary.txt" | awk '{print $6}' | median)"
    awk -v s="$s" -v t="$t" -v r="$r" -v l="$l" 'BEGIN {printf "sizemult %s: %s / local: %.3f (median %s vs %s GFlop/s)\n", s, t, (l ? r / l : 0), r, l}'
  done
done | tee -a "$RESULTS/summary.txt"
