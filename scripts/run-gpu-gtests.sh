#!/usr/bin/env bash
# Runs the server's GoogleTest suites against the real GPU(s) of this machine:
#   bash scripts/run-gpu-gtests.sh RC_DIR
# RC_DIR is an unpacked bundle's rc/ (bin/rc-server, bin/<test binaries>,
# bin/gpu_kernels.fatbin, lib/). Logs go to $OUT (device tool) or /tmp.
set -uo pipefail
RC="${1:?usage: run-gpu-gtests.sh RC_DIR}"
export LD_LIBRARY_PATH="$RC/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export RC_TEST_FATBIN="$RC/bin/gpu_kernels.fatbin" RC_SERVER_BIN="$RC/bin/rc-server"
LOGS="${OUT:-/tmp}"
status=0 ran=0
for t in rc_server_gpu_tests rc_server_tests rc_cublas_gpu_tests; do
  [ -x "$RC/bin/$t" ] || continue
  ran=1
  # Tests named Zz* fault the GPU on purpose, which poisons the whole process
  # (CUDA's rule): run them after the others, in a process of their own, as
  # ctest (one process per test) would.
  for part in main poison; do
    filter='-*Zz*'; [ $part = poison ] && filter='*Zz*'
    log="$LOGS/$t.$part.log"
    echo "== $t --gtest_filter=$filter"
    "$RC/bin/$t" --gtest_filter="$filter" >"$log" 2>&1
    rc=$?
    grep -E '^\[==========\] .* ran|^\[  (PASSED|FAILED|SKIPPED)  \]|^[0-9]+ devices' "$log"
    [ $rc -eq 0 ] || { status=1; grep -B5 -A25 'Failure' "$log" | head -80 || true; }
  done
done
[ $ran -eq 1 ] || { echo "run-gpu-gtests: no test binaries in $RC/bin"; exit 1; }
exit $status
