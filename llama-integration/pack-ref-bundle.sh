#!/usr/bin/env bash
# Packs a prebuilt nvcc reference build of llama.cpp (the "local" side of
# every comparison) into .bundle-ref/, so device-run.sh's ref step unpacks it
# instead of compiling for 8-10 minutes of each session's 30 minutes of
# device time. Build it on this machine, which has the GPU machine's nvcc
# (13.0.88, checked below), with device-run.sh's ref options and
# CMAKE_BUILD_RPATH_USE_ORIGIN=ON, so the binaries find their libraries
# wherever they are unpacked:
#
#   L=$(bash llama-integration/fetch-llama.sh)
#   cmake -S "$L" -B <repo>/build-ref -G Ninja -DCMAKE_BUILD_TYPE=Release \
#     -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_BUILD_RPATH_USE_ORIGIN=ON \
#     -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_CUDA_NCCL=OFF -DGGML_NATIVE=OFF \
#     -DGGML_RPC=ON -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF \
#     -DLLAMA_USE_PREBUILT_UI=OFF \
#     -DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,<repo>/build-ref/stubs
#   # No driver here: the executables' link needs libcuda.so.1, the stub will do.
#   mkdir -p <repo>/build-ref/stubs && ln -sf /usr/local/cuda/lib/stubs/libcuda.so <repo>/build-ref/stubs/libcuda.so.1
#   nice ninja -C <repo>/build-ref test-backend-ops llama-completion llama-bench \
#     llama-server ggml-rpc-server          # hours on 2 cores
#   bash llama-integration/pack-ref-bundle.sh
#
# The host code is then Debian 12's gcc 12 instead of the GPU machine's gcc:
# say so when comparing with results of a reference built there.
#
#   REF_BUILD=DIR (default <repo>/build-ref)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
REF_BUILD="${REF_BUILD:-$REPO/build-ref}"
OUT="$REPO/.bundle-ref"
MAX_MIB="${RC_BUNDLE_MAX_MIB:-60}"
NEEDED=(test-backend-ops llama-completion llama-bench llama-server ggml-rpc-server)

for b in "${NEEDED[@]}"; do
  [[ -x "$REF_BUILD/bin/$b" ]] || { echo "pack-ref-bundle: $REF_BUILD/bin/$b missing: build it first" >&2; exit 1; }
done
# What matters is the binaries' runpath, not how the cache spells the option
# (-D without a type leaves it UNINITIALIZED).
readelf -d "$REF_BUILD/bin/llama-bench" | grep -q 'R.*PATH.*\$ORIGIN' ||
  { echo "pack-ref-bundle: $REF_BUILD's binaries do not look beside themselves (\$ORIGIN): configure with CMAKE_BUILD_RPATH_USE_ORIGIN=ON" >&2; exit 1; }
nvcc_path="$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$REF_BUILD/CMakeCache.txt")"
nvcc_version="$("$nvcc_path" --version | tail -1)"

STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/ref/bin"
# The tools and every shared library beside them (symlinks kept).
for b in "${NEEDED[@]}"; do cp -a "$REF_BUILD/bin/$b" "$STAGE/ref/bin/"; done
cp -a "$REF_BUILD"/bin/*.so* "$STAGE/ref/bin/"
find "$STAGE/ref/bin" -type f -exec strip --strip-debug {} + 2>/dev/null || true
rm -rf "$OUT" && mkdir -p "$OUT"
tar -C "$STAGE" -cf - ref | xz -T2 -9 > "$OUT/ref.tar.xz"
{
  echo "nvcc reference build of $(git -C "$REPO" rev-parse --short HEAD)'s llama.cpp, packed $(date -u)"
  echo "nvcc: $nvcc_version"
} > "$OUT/SOURCE"
mib=$(( $(du -sk "$OUT" | cut -f1) / 1024 ))
echo "pack-ref-bundle: $OUT: $mib MiB ($nvcc_version)"
[[ $mib -le $MAX_MIB ]] || { echo "pack-ref-bundle: over $MAX_MIB MiB" >&2; exit 1; }
