#!/usr/bin/env bash
# Multipath host-to-device potential on a machine with two or more GPUs
# (bench/multipath_h2d.cu says what it times), with the topology beside it:
#   bash bench/multipath.sh        (on the GPU machine, repository root)
# Output: $OUT (the device tool's) or bench/out: multipath.txt.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RESULTS="${OUT:-$REPO/bench/out}"
mkdir -p "$RESULTS"
export PATH="/usr/local/cuda/bin:$PATH"
{
  nvidia-smi --query-gpu=index,name,pcie.link.gen.current,pcie.link.width.current --format=csv
  nvidia-smi topo -m
  nvcc -O2 -arch=sm_90 "$REPO/bench/multipath_h2d.cu" -o /tmp/rc-multipath-h2d &&
    /tmp/rc-multipath-h2d "${MIB:-1024}" "${REPS:-5}"
} 2>&1 | tee "$RESULTS/multipath.txt"
