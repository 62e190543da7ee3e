#!/usr/bin/env bash
# What VMM-backed device memory would cost rc-server against cuMemAlloc,
# and the copy rates a swap is made of (bench/vmm_cost.cu, local CUDA
# only; docs/design/memory.md). On the GPU machine from the repository root:
#
#   bash bench/vmm-cost.sh          # REPS=50 per size
#
# Results in $OUT (or bench/out): vmm-cost-raw.jsonl and
# vmm-cost/<date>-<gpu>.{json,md}: per size the median microseconds of
# cuMemAlloc+cuMemFree, of the VMM map+unmap and of a remap at the same
# address, the bytes the granularity adds; the 1 GiB pinned copy rates.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPS="${REPS:-50}"
RESULTS="${OUT:-$REPO/bench/out}"
mkdir -p "$RESULTS"
export PATH="/usr/local/cuda/bin:$PATH"
BIN="$(mktemp -d /tmp/rc-vmm-cost.XXXXXX)/vmm_cost"
trap 'rm -rf "$(dirname "$BIN")"' EXIT
nvcc -O2 -arch=sm_90 "$REPO/bench/vmm_cost.cu" -o "$BIN" -lcuda
"$BIN" "$REPS" | tee "$RESULTS/vmm-cost-raw.jsonl"
GPU="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
python3 - "$RESULTS" "$GPU" "$REPS" "$REPO/bench" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[4])
from results_doc import write_results
out, gpu, reps = sys.argv[1], sys.argv[2], sys.argv[3]
rows, by = [], {}
for line in open(out + "/vmm-cost-raw.jsonl"):
    r = json.loads(line)
    if "measure" in r:
        rows.append(r)
plain = {r["bytes"]: r["us"] for r in rows if r["measure"] == "cuMemAlloc+cuMemFree"}
for r in rows:
    base = plain.get(r["bytes"])
    if r["measure"] == "vmm map+unmap" and base:
        r["ratio"] = round(r["us"] / base, 2)
        r["local_value"] = base
cell = lambda v: "-" if v is None else str(v)
write_results(out, gpu, "vmm-cost", "VMM-backed device memory against cuMemAlloc",
              "median of %s per size, one process, driver API (bench/vmm-cost.sh)" % reps,
              rows, [("measure", lambda r: r["measure"]),
                     ("bytes", lambda r: str(r["bytes"])),
                     ("us", lambda r: cell(r["us"])),
                     ("x cuMemAlloc+cuMemFree", lambda r: cell(r.get("ratio"))),
                     ("padded bytes", lambda r: cell(r.get("padded_bytes"))),
                     ("GB/s", lambda r: cell(r.get("GB_per_s")))])
PY
cat "$RESULTS"/vmm-cost/*.md
