#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repository root, with
# `.bundle` carried: unpacks the bundle and runs the GPU tests: every sample
# through rc-server on the GPU, over tcp and over shm, then the server's
# GoogleTest suites against the real GPU, then the copy-size matrix.
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
bash "$ROOT/scripts/run-gpu-gtests.sh" "$DEST/rc" || status=1
# Every copy size, transport and RMA setting against the GPU.
bash "$ROOT/scripts/run-copy-matrix.sh" --server "$DEST/rc/bin/rc-server" \
  --program "$DEST/rc/samples/copy_sizes" || status=1
exit $status
