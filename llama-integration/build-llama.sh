#!/usr/bin/env bash
# Builds llama.cpp's CUDA backend and tools with remote-clang (client side:
# no GPU needed). Re-runs reuse the build folder.
#
#   bash llama-integration/build-llama.sh [TARGET...]
#
#   RC_BUILD_DIR=DIR remote-clang's build (drivers in DIR/bin; default <repo>/build)
#   LLAMA_BUILD=DIR  llama.cpp build folder (default <repo>/build-llama)
#   LLAMA_SRC, LLAMA_TARBALL, LLAMA_CACHE: see fetch-llama.sh
#   JOBS=N           parallel compile jobs (default 2)
#   RC_CCACHE=0      do not use ccache
#
# Run it under `nice -n 15` on a shared machine: ggml-cuda is ~144 CUDA files.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
RC_BUILD="${RC_BUILD_DIR:-$REPO/build}"
LLAMA_BUILD="${LLAMA_BUILD:-$REPO/build-llama}"
JOBS="${JOBS:-2}"
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=(llama-bench llama-cli llama-completion llama-server test-backend-ops)

for tool in remote-clang remote-clang++ nvcc rc-link; do
  [[ -x "$RC_BUILD/bin/$tool" ]] || { echo "build-llama: $RC_BUILD/bin/$tool missing: build remote-clang first (bash scripts/build.sh)" >&2; exit 1; }
done
# The drivers and the overlay's nvcc (CMake finds the CUDA toolkit through
# it) must come before any real CUDA on PATH.
export PATH="$RC_BUILD/bin:$PATH"

SRC="$(bash "$HERE/fetch-llama.sh")"
echo "build-llama: llama.cpp source $SRC"

launcher=()
if [[ "${RC_CCACHE:-1}" != 0 ]] && command -v ccache >/dev/null; then
  # ccache keys on the driver's command line and the preprocessed source; the
  # compiler "identity" must also cover what the driver runs behind it (the
  # plugin writes the fragment that goes into the object, rc-link embeds it),
  # so hash those files instead of the driver script's mtime.
  plugin="$(sed -n 's/^PLUGIN = "\(.*\)"$/\1/p' "$RC_BUILD/bin/remote-clang++")"
  check="sha256sum $RC_BUILD/bin/remote-clang++ $RC_BUILD/bin/rc-link $plugin /usr/bin/clang-19"
  ccache_cmd="env;CCACHE_COMPILERCHECK=$check;ccache"
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER="$ccache_cmd"
            -DCMAKE_CXX_COMPILER_LAUNCHER="$ccache_cmd"
            -DCMAKE_CUDA_COMPILER_LAUNCHER="$ccache_cmd")
fi

# A build folder keeps the compiler it was configured with: with another
# RC_BUILD_DIR the stamp below would describe tools this folder does not use.
configured="$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$LLAMA_BUILD/CMakeCache.txt" 2>/dev/null || true)"
if [[ -n "$configured" && "$configured" != "$RC_BUILD/bin/remote-clang++" ]]; then
  echo "build-llama: $LLAMA_BUILD was configured with $configured, not $RC_BUILD/bin/remote-clang++:" \
       "set RC_BUILD_DIR=$(dirname "$(dirname "$configured")") or use a new LLAMA_BUILD" >&2
  exit 1
fi
if [[ ! -f "$LLAMA_BUILD/build.ninja" ]]; then
  # ggml defaults kept (CUDA graphs, VMM, flash attention, PDL on Hopper).
  # NCCL off: the only NCCL here is CUDA 13's, and the overlay is CUDA 12.4.
  # UI/OpenSSL/curl off: no network at build time, fewer host dependencies
  # on the client machine.
  cmake -S "$SRC" -B "$LLAMA_BUILD" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=remote-clang \
    -DCMAKE_CXX_COMPILER=remote-clang++ \
    -DCMAKE_CUDA_COMPILER=remote-clang++ \
    -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGGML_CUDA=ON -DGGML_CUDA_NCCL=OFF -DGGML_CCACHE=OFF -DGGML_NATIVE=OFF \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    "${launcher[@]}"
fi

# Ninja knows the sources an object depends on, not the toolchain behind the
# driver (plugin, rc-link): when that changes, every object must be compiled
# again (ccache keys on the same files, so unchanged ones are still hits).
plugin="$(sed -n 's/^PLUGIN = "\(.*\)"$/\1/p' "$RC_BUILD/bin/remote-clang++")"
stamp="$(cat "$RC_BUILD/bin/remote-clang++" "$RC_BUILD/bin/rc-link" "$plugin" | sha256sum | cut -c1-16)"
# No stamp in a used build folder: built by an unknown toolchain, clean too.
if [[ -f "$LLAMA_BUILD/.ninja_log" && "$(cat "$LLAMA_BUILD/.rc-toolchain" 2>/dev/null)" != "$stamp" ]]; then
  echo "build-llama: remote-clang toolchain changed: recompiling everything"
  ninja -C "$LLAMA_BUILD" -t clean >/dev/null
fi
echo "$stamp" > "$LLAMA_BUILD/.rc-toolchain"

# -k 0: collect every failing file, not only the first.
status=0
ninja -C "$LLAMA_BUILD" -j "$JOBS" -k 0 "${TARGETS[@]}" || status=$?
if [[ $status -ne 0 ]]; then
  echo "build-llama: FAILED (ninja exit $status); see the errors above" >&2
  exit $status
fi
# The runtime looks for <loaded object>.rcm, and the loader names a library
# by the soname it found (libggml-cuda.so.0), while the link wrote the
# manifest beside the real file (libggml-cuda.so.0.25.3.rcm): link each
# soname's manifest to the real one.
for link in "$LLAMA_BUILD"/bin/*.so*; do
  [[ -L "$link" && "$link" != *.rcm ]] || continue
  real="$(readlink -f "$link")"
  [[ -f "$real.rcm" && ! -e "$link.rcm" ]] && ln -s "$(basename "$real").rcm" "$link.rcm"
done
echo "build-llama: OK: ${TARGETS[*]} in $LLAMA_BUILD/bin"
ls -la "$LLAMA_BUILD/bin"/*.rcm 2>/dev/null || true
