#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repository root, with
# `.bundle` carried: unpacks the bundle and runs the GPU tests: every sample
# through rc-server on the GPU, over tcp and over shm, then the server's
# GoogleTest suites against the real GPU.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST=/tmp/rc-bundle
rm -rf "$DEST" && mkdir -p "$DEST"
python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" \
  "$ROOT/.bundle/bundle.tar.xz" "$DEST"
export LD_LIBRARY_PATH="$DEST/rc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi -L
status=0
bash "$ROOT/scripts/run-samples.sh" --server "$DEST/rc/bin/rc-server" \
  --samples "$DEST/rc/samples" --transports "${RC_TRANSPORTS:-tcp shm}" || status=1
export RC_TEST_FATBIN="$DEST/rc/bin/gpu_kernels.fatbin" RC_SERVER_BIN="$DEST/rc/bin/rc-server"
LOGS="${OUT:-/tmp}"
for t in rc_server_gpu_tests rc_server_tests rc_cublas_gpu_tests; do
  [ -x "$DEST/rc/bin/$t" ] || continue
  # Tests named Zz* fault the GPU on purpose, which poisons the whole process
  # (CUDA's rule): run them after the others, in a process of their own, as
  # ctest (one process per test) would.
  for part in main poison; do
    filter='-*Zz*'; [ $part = poison ] && filter='*Zz*'
    log="$LOGS/$t.$part.log"
    echo "== $t --gtest_filter=$filter"
    "$DEST/rc/bin/$t" --gtest_filter="$filter" >"$log" 2>&1
    rc=$?
    grep -E '^\[==========\] .* ran|^\[  (PASSED|FAILED|SKIPPED)  \]' "$log"
    [ $rc -eq 0 ] || { status=1; grep -B5 -A25 'Failure' "$log" | head -80 || true; }
  done
done
exit $status
