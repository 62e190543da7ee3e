#!/usr/bin/env bash
# Packs what llama-integration/device-run.sh needs on the GPU machine (which
# has nvcc, cmake and ninja, but no clang and no network) into
# <repo>/.bundle-llama/:
#
#   llama-rc.tar.xz   the remote-clang llama.cpp build: tools, test-backend-ops,
#                     every .so with its .rcm manifest
#   rc.tar.xz         rc-server, the runtime libraries, libfabric and its deps
#   llama-src.tar.xz  the same llama.cpp source, for the local nvcc reference
#                     build (docs/, tests' vocab files except Llama's, and the
#                     web UI assets left out)
#   tiny-q4_0.gguf    a tiny random model, for machines without numpy
#
# The fatbins inside the .rcm manifests carry sm_90 SASS and PTX. Binaries
# lose their debug info only. Over RC_BUNDLE_MAX_MIB (60) it says so and fails.
#
#   LLAMA_BUILD=DIR  (default /work/llama-build)   RC_BUILD=DIR (default <repo>/build)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
RC_BUILD="${RC_BUILD:-$REPO/build}"
LLAMA_BUILD="${LLAMA_BUILD:-/work/llama-build}"
OUT="$REPO/.bundle-llama"
MAX_MIB="${RC_BUNDLE_MAX_MIB:-60}"
SRC="$(bash "$HERE/fetch-llama.sh")"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$OUT" "$STAGE/llama/bin" "$STAGE/rc/bin" "$STAGE/rc/lib"

# --- the remote-clang llama.cpp build
n=0
for t in llama-bench llama-cli llama-completion llama-server test-backend-ops; do
  if [[ -x "$LLAMA_BUILD/bin/$t" ]]; then
    cp "$LLAMA_BUILD/bin/$t" "$STAGE/llama/bin/"; n=$((n + 1))
    [[ -f "$LLAMA_BUILD/bin/$t.rcm" ]] && cp "$LLAMA_BUILD/bin/$t.rcm" "$STAGE/llama/bin/"
  else
    echo "pack-device-bundle: warning: $t not built (bash llama-integration/build-llama.sh)" >&2
  fi
done
[[ $n -gt 0 ]] || { echo "pack-device-bundle: no llama.cpp binaries in $LLAMA_BUILD/bin" >&2; exit 1; }
# Shared libraries keep their soname symlinks (-a); manifests beside them.
cp -a "$LLAMA_BUILD"/bin/*.so* "$STAGE/llama/bin/"
for f in "$STAGE"/llama/bin/*; do
  [[ -L "$f" || "$f" == *.rcm ]] && continue
  # Debug info only: .nv_fatbin must stay, the registration code points at it.
  strip --strip-debug "$f" 2>/dev/null || true
done
rcms=("$STAGE"/llama/bin/*.rcm)
[[ -e "${rcms[0]}" ]] || { echo "pack-device-bundle: no .rcm manifests in $LLAMA_BUILD/bin" >&2; exit 1; }
# libggml-cuda.so and its .rcm carry the same fatbins: name order puts them
# side by side and one large xz dictionary stores the second copy as a match.
tar -C "$STAGE" --sort=name -cf - llama | xz -T1 --lzma2=preset=6,dict=192MiB > "$OUT/llama-rc.tar.xz"

# --- rc-server, runtime, libfabric (glibc/libstdc++ are the GPU machine's own)
cp "$RC_BUILD/bin/rc-server" "$STAGE/rc/bin/"
cp -L "$RC_BUILD"/lib/librc_*.so* "$STAGE/rc/lib/"
for lib in $(ldd "$RC_BUILD/bin/rc-server" "$RC_BUILD"/lib/librc_*.so | awk '/=>/ {print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libstdc++.so*|libgcc_s.so*|ld-linux*) ;;
    *) cp -L "$lib" "$STAGE/rc/lib/" ;;
  esac
done
strip --strip-debug "$STAGE"/rc/bin/* "$STAGE"/rc/lib/* 2>/dev/null || true
tar -C "$STAGE" -cf - rc | xz -T2 -6 > "$OUT/rc.tar.xz"

# --- llama.cpp source for the nvcc reference build (same commit)
tar -C "$(dirname "$SRC")" -cf - \
  --exclude='llama.cpp/.git' --exclude='llama.cpp/docs' --exclude='llama.cpp/media' \
  --exclude='llama.cpp/tools/ui/*.gz' --exclude='llama.cpp/tools/ui/public' \
  --exclude='llama.cpp/models/ggml-vocab-[!l]*' --exclude='llama.cpp/models/ggml-vocab-llama-*.inp' \
  --exclude='llama.cpp/models/ggml-vocab-llama-*.out' --exclude='llama.cpp/models/*.gguf.*' \
  llama.cpp | xz -T2 -6 > "$OUT/llama-src.tar.xz"

# --- a tiny model, in case the GPU machine's Python has no numpy
if [[ ! -f "$OUT/tiny-q4_0.gguf" ]]; then
  PY="$REPO/.venv/bin/python"; [[ -x "$PY" ]] || PY=python3
  PYTHONPATH="$SRC/gguf-py" "$PY" "$HERE/make-random-model.py" --llama-src "$SRC" \
    --shape tiny --type q4_0 --out "$OUT/tiny-q4_0.gguf"
fi
cp "$HERE/make-random-model.py" "$HERE/check-model.py" "$OUT/"

ls -la "$OUT"
total=$(du -cm "$OUT"/* | tail -1 | cut -f1)
echo "pack-device-bundle: $OUT: $total MiB"
if [[ $total -gt $MAX_MIB ]]; then
  echo "pack-device-bundle: warning: over $MAX_MIB MiB; PTX can be left out of the manifests" \
       "by building with CUDA flag --cuda-include-ptx=none (see docs/llama-cpp.md)" >&2
  exit 1
fi
