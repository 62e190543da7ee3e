#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repository root, with
# `.bundle` carried: the transport's own numbers on that host
# (docs/transport.md, "Numbers"): round trips and echo throughput over tcp
# and shm, then read-backs by RMA of llama.cpp's logits sizes (a 7B token's
# 128 KiB, a 1B token's 513 KB) next to a plain loopback TCP socket.
#
#   bash scripts/device-transport-bench.sh      (ITERS=2000 read-backs a size)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST=/tmp/rc-bundle
ITERS="${ITERS:-2000}"
if [ ! -x "$DEST/rc/bin/rc_transport_bench" ]; then
  rm -rf "$DEST" && mkdir -p "$DEST"
  python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" \
    "$ROOT/.bundle/bundle.tar.xz" "$DEST"
fi
export LD_LIBRARY_PATH="$DEST/rc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
BENCH="$DEST/rc/bin/rc_transport_bench"
[ -x "$BENCH" ] || { echo "device-transport-bench: $BENCH missing (rebuild .bundle with scripts/make-device-bundle.sh)"; exit 1; }
status=0
for transport in tcp shm; do
  "$BENCH" "$transport" 20000 || status=1
  for bytes in 131072 525312 4194304; do
    "$BENCH" "$transport" readback "$bytes" "$ITERS" || status=1
  done
done
exit $status
