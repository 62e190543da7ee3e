#!/usr/bin/env bash
# Configures and builds remote-clang (toolchain, runtime, server, tests) with
# Ninja + ccache into build/ (or $RC_BUILD_DIR). Re-runs are incremental.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${RC_BUILD_DIR:-$ROOT/build}"
[ -d "$ROOT/.cuda-root" ] || { echo "build.sh: run scripts/setup.sh first (.cuda-root missing)" >&2; exit 1; }
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
ninja -C "$BUILD" -j"$(nproc)" "$@"
