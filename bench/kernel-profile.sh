#!/usr/bin/env bash
# Kernel by kernel: the same llama-bench decode run, built by nvcc (local)
# and by remote-clang (its kernels run inside rc-server), under Nsight
# Compute, which runs each kernel alone and times it (gpu__time_duration).
# So launch gaps, PDL overlap and remoting costs are out of the numbers:
# what is left is each kernel's own code, clang 19's against nvcc's.
#
#   bash bench/kernel-profile.sh        (on the GPU machine, after
#                                        scripts/device-run.sh unpack ref models)
#
#   MODEL=7b:q4_0  N=4 (decode tokens)  WORK (as device-run.sh)
#   P=512 N=0: one prompt step of 512 tokens instead (prefill's kernels)
#   SIDES="local remote" (one side alone: compare later, on any machine, with
#   bench/kernel_compare.py; ncu times at locked clocks, so two H100s agree)
#   DETAIL=REGEX: instead, the first 2 launches of the kernels whose
#   mangled name matches, with Nsight Compute's warp-state (stall reasons),
#   scheduler, instruction-mix, source-counter and memory sections, as text
#   (kernels-{local,remote}-detail.txt): why one build's kernel is slower
#   (e.g. DETAIL=flash_attn_ext_f16 P=512 N=0)
# Files: $OUT/kernels-{local,remote}.csv; bench/kernel_compare.py prints the
# per-kernel table (largest local time first) and the totals.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
MODEL="${MODEL:-7b:q4_0}"
N="${N:-4}"
P="${P:-0}"
SIDES="${SIDES:-local remote}"
OUT_DIR="${OUT:-$REPO/bench/out}"; mkdir -p "$OUT_DIR"
model="$WORK/models/${MODEL%%:*}-${MODEL##*:}.gguf"
RC_BIN="$WORK/rc/bin"; LL_BIN="$WORK/llama/bin"; REF_BIN="$WORK/ref/bin"
NCU="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
[[ -x "$NCU" ]] || { echo "kernel-profile: no ncu on this machine"; exit 1; }
[[ -f "$model" ]] || { echo "kernel-profile: no $model: run device-run.sh models first"; exit 1; }
# The time, and what explains a gap in a memory-bound kernel: registers per
# thread (they cap the warps an SM holds), the warps actually resident and
# the DRAM bandwidth reached. Mangled names match across compilers.
METRICS="gpu__time_duration.sum,launch__registers_per_thread"
METRICS+=",sm__warps_active.avg.pct_of_peak_sustained_active"
METRICS+=",dram__throughput.avg.pct_of_peak_sustained_elapsed"
ncu_args=(--metrics "$METRICS" --csv --page raw --print-units base
  --print-kernel-base mangled --target-processes all)
suffix=.csv
if [[ -n "${DETAIL:-}" ]]; then
  ncu_args=(--kernel-name "regex:$DETAIL" --launch-count 2 --page details
    --section WarpStateStats --section SchedulerStats --section InstructionStats
    --section SourceCounters --section MemoryWorkloadAnalysis
    --section ComputeWorkloadAnalysis --print-kernel-base mangled
    --target-processes all)
  suffix=-detail.txt
fi
bench_args=(-m "$model" -ngl 99 -p "$P" -n "$N" -r 1 -o jsonl)

profile_local() {
  echo "== kernel-profile: local (nvcc)"
  [[ -x "$REF_BIN/llama-bench" ]] || { echo "no nvcc build: device-run.sh ref"; return 1; }
  timeout 280 "$NCU" "${ncu_args[@]}" --log-file "$OUT_DIR/kernels-local$suffix" \
    "$REF_BIN/llama-bench" "${bench_args[@]}" > "$OUT_DIR/kernels-local.out" 2>&1 ||
    { echo "local run failed:"; tail -5 "$OUT_DIR/kernels-local.out"; }
}

profile_remote() {
  echo "== kernel-profile: remote (remote-clang through rc-server, shm)"
  [[ -x "$LL_BIN/llama-bench" ]] || { echo "no remote-clang build: device-run.sh unpack"; return 1; }
  local url="shm://rc-ncu-$$" pid m
  local manifests=(); while read -r m; do manifests+=(--manifest "$m"); done < <(find "$LL_BIN" -maxdepth 1 -type f -name '*.rcm')
  env LD_LIBRARY_PATH="$WORK/rc/lib" timeout 300 "$NCU" "${ncu_args[@]}" \
    --log-file "$OUT_DIR/kernels-remote$suffix" "$RC_BIN/rc-server" --listen "$url" \
    "${manifests[@]}" > "$OUT_DIR/kernels-server.log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do grep -q "listening on" "$OUT_DIR/kernels-server.log" && break; sleep 0.2; done
  LD_LIBRARY_PATH="$LL_BIN:$WORK/rc/lib" RC_SERVER="$url" timeout 240 \
    "$LL_BIN/llama-bench" "${bench_args[@]}" > "$OUT_DIR/kernels-remote.out" 2>&1 ||
    { echo "remote run failed:"; tail -5 "$OUT_DIR/kernels-remote.out"; }
  pkill -INT -f "$RC_BIN/rc-server" || true
  wait "$pid"
}

for side in $SIDES; do "profile_$side"; done
[[ -z "${DETAIL:-}" ]] || exit 0
[[ -f "$OUT_DIR/kernels-local.csv" && -f "$OUT_DIR/kernels-remote.csv" ]] || exit 0
python3 "$REPO/bench/kernel_compare.py" "$OUT_DIR/kernels-local.csv" "$OUT_DIR/kernels-remote.csv"
