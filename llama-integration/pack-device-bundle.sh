#!/usr/bin/env bash
# Packs what llama-integration/device-run.sh needs on the GPU machine (which
# has nvcc, cmake, ninja and numpy, but no clang and no network) into two
# folders, one per device call, each under the 64 MiB carry limit:
#
#   .bundle-llama/      llama-rc.tar.xz  the remote-clang llama.cpp build:
#                                        tools, test-backend-ops, every .so
#                                        with its .rcm manifest
#                       rc.tar.xz        rc-server, the runtime libraries,
#                                        libfabric and its dependencies, the
#                                        server's GPU test suites
#   .bundle-llama-src/  llama-src.tar.xz the same llama.cpp source, for the
#                                        local nvcc reference build (docs/,
#                                        vocab files other than Llama's, the
#                                        web UI assets and ggml's other GPU
#                                        backends left out)
#
# Together they just fit one call (check: du -cm .bundle-llama*/*); else the
# first call carries .bundle-llama-src (device-run.sh unpack ref models), the
# next ones .bundle-llama: the machine keeps .device-llama/ between calls
# while it stays warm. The fatbins live only in the .rcm manifests (sm_90
# SASS and PTX; objects keep a 32-byte stub, docs/manifest.md). Binaries
# lose their debug info only. A folder over RC_BUNDLE_MAX_MIB (60) fails.
#
#   LLAMA_BUILD=DIR  (default <repo>/build-llama)   RC_BUILD_DIR=DIR (default <repo>/build)
#   RC_ONLY=1        repack rc.tar.xz only (after a runtime or server change;
#                    llama-rc.tar.xz takes minutes and has not changed)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
RC_BUILD="${RC_BUILD_DIR:-$REPO/build}"
LLAMA_BUILD="${LLAMA_BUILD:-$REPO/build-llama}"
OUT="$REPO/.bundle-llama"
OUT_SRC="$REPO/.bundle-llama-src"
MAX_MIB="${RC_BUNDLE_MAX_MIB:-60}"
SRC="$(bash "$HERE/fetch-llama.sh")"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
RC_ONLY="${RC_ONLY:-0}"
if [[ $RC_ONLY != 1 ]]; then
  rm -rf "$OUT" "$OUT_SRC"
elif [[ ! -f "$OUT/llama-rc.tar.xz" ]]; then
  echo "pack-device-bundle: RC_ONLY=1 needs an earlier $OUT/llama-rc.tar.xz" >&2; exit 1
fi
mkdir -p "$OUT" "$OUT_SRC" "$STAGE/llama/bin" "$STAGE/rc/bin" "$STAGE/rc/lib"

# The remote-clang llama.cpp build.
pack_llama() {
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
  # The ~140 fatbins in libggml-cuda's .rcm are template instances of the same
  # kernels; a dictionary as large as the manifest lets xz match across all of
  # them (measured: the .rcm alone is 52 MB with xz -6, the whole tarball with
  # this setting 56 MB).
  tar -C "$STAGE" --sort=name -cf - llama | xz -T1 --lzma2=preset=9,dict=192MiB > "$OUT/llama-rc.tar.xz"
}

# --- rc-server, runtime, libfabric (glibc/libstdc++ are the GPU machine's own)
cp "$RC_BUILD/bin/rc-server" "$STAGE/rc/bin/"
cp -L "$RC_BUILD"/lib/librc_*.so* "$STAGE/rc/lib/"
# The server's GPU test suites (about 1.3 MB compressed), so a multi-GPU
# machine can run them in the same call (scripts/run-gpu-gtests.sh).
for t in rc_server_gpu_tests rc_server_tests rc_cublas_gpu_tests rc_rt_prog_copy_stress; do
  [ -x "$RC_BUILD/bin/$t" ] && cp "$RC_BUILD/bin/$t" "$STAGE/rc/bin/"
done
[ -f "$RC_BUILD/test/unit/server/gpu_kernels.fatbin" ] &&
  cp "$RC_BUILD/test/unit/server/gpu_kernels.fatbin" "$STAGE/rc/bin/"
# libfabric is loaded at run time (docs/transport.md), so ldd does not list
# it: named here with its own dependencies.
FABRIC="$(pkg-config --variable=libdir libfabric)/libfabric.so.1"
for lib in "$FABRIC" $(ldd "$RC_BUILD/bin/rc-server" "$RC_BUILD"/lib/librc_*.so "$FABRIC" | awk '/=>/ {print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libstdc++.so*|libgcc_s.so*|ld-linux*) ;;
    *) cp -L "$lib" "$STAGE/rc/lib/" ;;
  esac
done
strip --strip-debug "$STAGE"/rc/bin/* "$STAGE"/rc/lib/* 2>/dev/null || true
tar -C "$STAGE" -cf - rc | xz -T2 -6 > "$OUT/rc.tar.xz"

# --- llama.cpp source for the nvcc reference build (same commit)
pack_source() {
  tar -C "$(dirname "$SRC")" -cf - \
    --exclude='llama.cpp/.git' --exclude='llama.cpp/docs' --exclude='llama.cpp/media' \
    --exclude='llama.cpp/tools/ui/*.gz' --exclude='llama.cpp/tools/ui/public' \
    --exclude='llama.cpp/models/ggml-vocab-[!l]*' --exclude='llama.cpp/models/ggml-vocab-llama-*.inp' \
    --exclude='llama.cpp/models/ggml-vocab-llama-*.out' --exclude='llama.cpp/models/*.gguf.*' \
    --exclude='llama.cpp/ggml/src/ggml-'{cann,et,hexagon,metal,musa,opencl,openvino,sycl,virtgpu,vulkan,webgpu,zdnn,zendnn} \
    --exclude='llama.cpp/benches' --exclude='llama.cpp/tools/ui/tests' --exclude='llama.cpp/tools/mtmd/*.mp4' \
    llama.cpp | xz -T2 -9 > "$OUT_SRC/llama-src.tar.xz"
}

[[ $RC_ONLY == 1 ]] || { pack_llama; pack_source; }

status=0
for dir in "$OUT" "$OUT_SRC"; do
  ls -la "$dir"
  total=$(du -cm "$dir"/* | tail -1 | cut -f1)
  echo "pack-device-bundle: $dir: $total MiB"
  if [[ $total -gt $MAX_MIB ]]; then
    echo "pack-device-bundle: error: $dir is over $MAX_MIB MiB" >&2
    status=1
  fi
done
exit $status
