#!/usr/bin/env bash
# Packs what must run on the GPU machine (no clang, no network) into folders
# the device tool carries, one per part; scripts/device-run.sh unpacks them.
#
#   bash scripts/pack-device-bundle.sh [PART...]      (default: rc)
#
# Parts:
#   rc         .bundle/rc.tar.xz (~5 MiB): rc-server, the runtime libraries,
#              the sample binaries with their manifests, the server's and
#              cuBLAS's GoogleTest suites, the transport bench, the stress
#              programs, libfabric and libcrypto with their dependencies
#   llama      .bundle-llama/llama.tar.xz (~50 MiB): llama.cpp built by
#              llama-integration/build-llama.sh, every .so with its .rcm
#   llama-src  .bundle-llama-src/llama-src.tar.xz: the same llama.cpp
#              source, for the local nvcc reference build (device-run.sh ref)
#   compat     .bundle-compat/compat-remote.tar.xz: the cuda-samples that
#              compat/build_samples.py built, with their manifests
#              (build_samples.py --collect), for device-run.sh compat; the
#              few over 100 MB in .bundle-compat-big (a call of their own)
#   compat-src .bundle-compat-src/cuda-samples.tar.xz: the cuda-samples
#              tree but the samples' doc/ folders (papers, not read by
#              builds or runs), for the nvcc build and the samples' data
#   yardsticks .bundle-yardsticks/ (~5 MiB for Rodinia and SHOC): the suites
#              compat/yardstick.py built, one per definition in
#              $RC_YARDSTICK_SUITES with a checkout in $YARDSTICK_SRC/<suite>:
#              yardsticks.tar.xz, per suite what remote-clang built with its
#              manifests and the suite's tree (for the nvcc build and the
#              runs' data); suites/, the definitions (kept outside the
#              repository), for device-run.sh yardsticks-local yardsticks
#   nvrtc      .bundle-nvrtc/nvrtc.tar.xz (~35 MiB): the client's NVRTC
#              (CUDA 12.4), for the samples that compile kernels at run time
#              (nvrtc_saxpy); device-run.sh unpacks it into the runtime's lib/
#
# A device call carries 64 MiB: `.bundle` with `.bundle-llama` fits, the
# source goes in a call of its own (the GPU machine keeps what device-run.sh
# unpacked while it stays warm). A folder over RC_BUNDLE_MAX_MIB (60) fails.
# Binaries lose their debug info only (.nv_fatbin must stay: the
# registration code points at it).
#
#   RC_BUILD_DIR=DIR (default <repo>/build)   LLAMA_BUILD=DIR (default <repo>/build-llama)
#   CUDA_SAMPLES_DIR=DIR (cuda-samples checkout; compat parts)
#   COMPAT_RESULTS=FILE (build_samples.py's results; default the newest
#   cuda-samples one in compat/results)   RC_COMPAT_WORK=DIR (its build
#   folder, /tmp/rc-compat-build)
#   RC_YARDSTICK_SUITES=DIR (the suite definitions, suite_<suite>.py, and
#   their helpers)   YARDSTICK_SRC=DIR (the suites' checkouts, <suite>/)
#   YARDSTICK_RESULTS=DIR (yardstick.py build's results, the newest
#   *-<suite>-*.json; default compat/results)   RC_YARDSTICK_WORK=DIR
#   (yardstick.py build's folder, /tmp/rc-yardstick-build)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RC_BUILD="${RC_BUILD_DIR:-$REPO/build}"
LLAMA_BUILD="${LLAMA_BUILD:-$REPO/build-llama}"
MAX_MIB="${RC_BUNDLE_MAX_MIB:-60}"
PARTS=("$@")
[[ ${#PARTS[@]} -gt 0 ]] || PARTS=(rc)
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT

strip_debug() { strip --strip-debug "$@" 2>/dev/null || true; }

pack_rc() {
  local out="$REPO/.bundle" rc="$STAGE/rc" t b lib fabric
  rm -rf "$out" && mkdir -p "$out" "$rc/bin" "$rc/lib" "$rc/samples"
  cp "$RC_BUILD/bin/rc-server" "$rc/bin/"
  for t in rc_server_gpu_tests rc_server_tests rc_server_mps_tests rc_cublas_gpu_tests rc_transport_bench \
    rc_stress_client rc_stress_peers rc_rt_prog_copy_stress rc-cache \
    rc_runtime_dlopen_gpu_tests rc_rt_prog_dlopen_cuda; do
    [[ -x "$RC_BUILD/bin/$t" ]] && cp "$RC_BUILD/bin/$t" "$rc/bin/"
  done
  [[ -f "$RC_BUILD/test/unit/server/gpu_kernels.fatbin" ]] &&
    cp "$RC_BUILD/test/unit/server/gpu_kernels.fatbin" "$rc/bin/"
  cp -L "$RC_BUILD"/lib/librc_*.so* "$rc/lib/"
  # CUDA's names for programs that dlopen CUDA (docs/driver-api.md), apart
  # from lib/: rc-server, started with lib/ on its path, needs NVIDIA's.
  mkdir -p "$rc/cuda-names"
  for n in libcuda.so libcuda.so.1; do ln -sfn ../lib/librc_cuda.so "$rc/cuda-names/$n"; done
  for n in libcudart.so libcudart.so.12; do ln -sfn ../lib/librc_cudart.so "$rc/cuda-names/$n"; done
  for b in "$RC_BUILD"/samples/*; do
    [[ -f "$b.rcm" ]] && cp "$b" "$b.rcm" "$rc/samples/"
  done
  # bench/bulk.sh's, bench/session-start.sh's, bench/gpu-sharing.sh's and
  # bench/host-threads.sh's programs, built by remote-clang (the GPU
  # machine has no clang; it builds the local ones with nvcc).
  mkdir -p "$rc/bench"
  for prog in copy_bandwidth copy_streams session_start sharing_kernels host_threads; do
    "$RC_BUILD/bin/remote-clang++" -O2 "$REPO/bench/$prog.cu" -o "$rc/bench/$prog"
  done
  # glibc and libstdc++ are newer on the GPU machine (Ubuntu 24.04), so those
  # stay behind. libfabric is loaded at run time (docs/transport.md), so ldd
  # does not list it: named here with its own dependencies.
  fabric="$(pkg-config --variable=libdir libfabric)/libfabric.so.1"
  for lib in "$fabric" $(ldd "$RC_BUILD/bin/rc-server" "$RC_BUILD"/lib/librc_*.so "$fabric" |
                         awk '/=>/ {print $3}' | sort -u); do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libstdc++.so*|libgcc_s.so*|ld-linux*) ;;
      *) cp -L "$lib" "$rc/lib/" ;;
    esac
  done
  strip_debug "$rc"/bin/* "$rc"/lib/* "$rc"/samples/* "$rc"/bench/copy_bandwidth \
    "$rc"/bench/copy_streams "$rc"/bench/session_start "$rc"/bench/sharing_kernels \
    "$rc"/bench/host_threads
  tar -C "$STAGE" -cf - rc | xz -T2 -6 > "$out/rc.tar.xz"
}

pack_llama() {
  local out="$REPO/.bundle-llama" bin="$STAGE/llama/bin" t n=0 f rcms
  rm -rf "$out" && mkdir -p "$out" "$bin"
  for t in llama-bench llama-cli llama-completion llama-server test-backend-ops; do
    if [[ -x "$LLAMA_BUILD/bin/$t" ]]; then
      cp "$LLAMA_BUILD/bin/$t" "$bin/"; n=$((n + 1))
      [[ -f "$LLAMA_BUILD/bin/$t.rcm" ]] && cp "$LLAMA_BUILD/bin/$t.rcm" "$bin/"
    else
      echo "pack-device-bundle: warning: $t not built (bash llama-integration/build-llama.sh)" >&2
    fi
  done
  [[ $n -gt 0 ]] || { echo "pack-device-bundle: no llama.cpp binaries in $LLAMA_BUILD/bin" >&2; exit 1; }
  # Shared libraries keep their soname symlinks (-a); manifests beside them.
  cp -a "$LLAMA_BUILD"/bin/*.so* "$bin/"
  # clang's OpenMP runtime (ggml-cpu links it when CMake finds OpenMP with
  # clang): the GPU machine has gcc's libgomp only.
  for f in $(ldd "$bin"/*.so "$bin/llama-bench" 2>/dev/null | awk '/libomp\.so/ {print $3}' | sort -u); do
    cp -L "$f" "$bin/"
  done
  for f in "$bin"/*; do
    [[ -L "$f" || "$f" == *.rcm ]] || strip_debug "$f"
  done
  rcms=("$bin"/*.rcm)
  [[ -e "${rcms[0]}" ]] || { echo "pack-device-bundle: no .rcm manifests in $LLAMA_BUILD/bin" >&2; exit 1; }
  # The ~140 fatbins in libggml-cuda's .rcm are template instances of the same
  # kernels; a dictionary as large as the manifest lets xz match across all of
  # them (measured: the .rcm alone is 52 MB with xz -6, the whole tarball with
  # this setting 56 MB).
  tar -C "$STAGE" --sort=name -cf - llama | xz -T1 --lzma2=preset=9,dict=192MiB > "$out/llama.tar.xz"
}

# docs/, vocab files other than Llama's, the web UI assets and ggml's other
# GPU backends are left out: the nvcc reference build needs none of them.
pack_llama_src() {
  local out="$REPO/.bundle-llama-src" src
  src="$(bash "$REPO/llama-integration/fetch-llama.sh")"
  rm -rf "$out" && mkdir -p "$out"
  tar -C "$(dirname "$src")" -cf - \
    --exclude='llama.cpp/.git' --exclude='llama.cpp/docs' --exclude='llama.cpp/media' \
    --exclude='llama.cpp/tools/ui/*.gz' --exclude='llama.cpp/tools/ui/public' \
    --exclude='llama.cpp/models/ggml-vocab-[!l]*' --exclude='llama.cpp/models/ggml-vocab-llama-*.inp' \
    --exclude='llama.cpp/models/ggml-vocab-llama-*.out' --exclude='llama.cpp/models/*.gguf.*' \
    --exclude='llama.cpp/ggml/src/ggml-'{cann,et,hexagon,metal,musa,opencl,openvino,sycl,virtgpu,vulkan,webgpu,zdnn,zendnn} \
    --exclude='llama.cpp/benches' --exclude='llama.cpp/tools/ui/tests' --exclude='llama.cpp/tools/mtmd/*.mp4' \
    llama.cpp | xz -T2 -9 > "$out/llama-src.tar.xz"
}

need_samples() {
  [[ -n "${CUDA_SAMPLES_DIR:-}" && -f "$CUDA_SAMPLES_DIR/CMakeLists.txt" ]] ||
    { echo "pack-device-bundle: set CUDA_SAMPLES_DIR to a cuda-samples checkout" >&2; exit 1; }
}

pack_compat() {
  local out="$REPO/.bundle-compat" big="$REPO/.bundle-compat-big" results d
  need_samples
  # cuda-samples' results are named by their tag (v12.9); the other
  # suites' (rodinia, shoc) by their name.
  results="${COMPAT_RESULTS:-$(ls "$REPO"/compat/results/*-v[0-9]*.json | sort | tail -1)}"
  rm -rf "$out" "$big" && mkdir -p "$out" "$STAGE/compat" "$STAGE/compat-big/remote"
  # The toolchain of RC_BUILD_DIR: its overlay's path is what the samples
  # were built with (libNVVM samples open libdevice by it).
  python3 "$REPO/compat/build_samples.py" --samples "$CUDA_SAMPLES_DIR" --out "$results" \
    --toolchain "$RC_BUILD/remote-clang-toolchain.cmake" \
    --work "${RC_COMPAT_WORK:-/tmp/rc-compat-build}" --collect "$STAGE/compat/remote"
  # The samples ask for up to fifteen architectures; a sample whose manifest
  # is huge (the Thrust ones' were 240 and 330 MB with -O0 device code,
  # 54 and 32 MB now) would push the rest past one call's 64 MiB, so
  # samples over 100 MB travel in a call of their own.
  while read -r d; do
    mkdir -p "$STAGE/compat-big/remote/$(dirname "$d")"
    mv "$STAGE/compat/remote/$d" "$STAGE/compat-big/remote/$d"
  done < <(cd "$STAGE/compat/remote" && for d in */*/; do
             [[ $(du -sm "$d" | cut -f1) -gt 100 ]] && echo "${d%/}"; done)
  cp "$STAGE/compat/remote/rows.json" "$STAGE/compat-big/remote/"
  # Manifests of template-heavy samples repeat the same cubins (reduction's
  # was 117 MB): a large dictionary finds the repeats.
  tar -C "$STAGE/compat" --sort=name -cf - remote |
    xz -T1 --lzma2=preset=9,dict=192MiB > "$out/compat-remote.tar.xz"
  if [[ -n "$(ls "$STAGE/compat-big/remote" | grep -v rows.json)" ]]; then
    mkdir -p "$big"
    tar -C "$STAGE/compat-big" --sort=name -cf - remote |
      xz -T1 --lzma2=preset=9,dict=192MiB > "$big/compat-remote.tar.xz"
  fi
}

pack_compat_src() {
  local out="$REPO/.bundle-compat-src"
  need_samples
  rm -rf "$out" && mkdir -p "$out"
  tar -C "$(dirname "$CUDA_SAMPLES_DIR")" --transform "s,^$(basename "$CUDA_SAMPLES_DIR"),cuda-samples," \
    --exclude=.git --exclude="$(basename "$CUDA_SAMPLES_DIR")/bin" \
    --exclude="$(basename "$CUDA_SAMPLES_DIR")/Samples/*/*/doc" \
    -cf - "$(basename "$CUDA_SAMPLES_DIR")" |
    xz -T2 -6 > "$out/cuda-samples.tar.xz"
}

pack_yardsticks() {
  local out="$REPO/.bundle-yardsticks" defs="${RC_YARDSTICK_SUITES:-}" src="${YARDSTICK_SRC:-}"
  local found="${YARDSTICK_RESULTS:-$REPO/compat/results}" def suite results packed=0
  [[ -d "$defs" && -d "$src" ]] || { echo "pack-device-bundle: yardsticks needs" \
    "RC_YARDSTICK_SUITES (a folder of suite_<suite>.py) and YARDSTICK_SRC (a folder of" \
    "the suites' checkouts, <suite>/)" >&2; exit 1; }
  rm -rf "$out" && mkdir -p "$out/suites" "$STAGE/yardsticks"
  for def in "$defs"/suite_*.py; do
    suite="$(basename "$def" .py)" && suite="${suite#suite_}"
    [[ -d "$src/$suite" ]] || { echo "pack-device-bundle: $suite: no $src/$suite, left out"; continue; }
    results="$(ls "$found"/*-"$suite"-*.json 2>/dev/null | sort | tail -1)"
    [[ -n "$results" ]] || { echo "pack-device-bundle: no $found/*-$suite-*.json" \
      "(run compat/yardstick.py build first)" >&2; exit 1; }
    python3 "$REPO/compat/yardstick.py" collect --suite "$def" --src "$src/$suite" \
      --out "$results" --build-dir "$RC_BUILD" \
      --work "${RC_YARDSTICK_WORK:-/tmp/rc-yardstick-build}" --dest "$STAGE/yardsticks"
    packed=$((packed + 1))
  done
  [[ $packed -gt 0 ]] || { echo "pack-device-bundle: no suite of $defs has a checkout in $src" >&2; exit 1; }
  # The definitions and the helpers they import, not their tests.
  find "$defs" -maxdepth 1 -name '*.py' ! -name 'test_*' -exec cp {} "$out/suites/" \;
  tar -C "$STAGE" --sort=name -cf - yardsticks | xz -T2 -9 > "$out/yardsticks.tar.xz"
}

pack_nvrtc() {
  local out="$REPO/.bundle-nvrtc" lib="$STAGE/nvrtc/lib"
  rm -rf "$out" && mkdir -p "$out" "$lib"
  cp -L "$RC_BUILD"/lib/libnvrtc.so.12 "$RC_BUILD"/lib/libnvrtc-builtins.so.* "$lib/"
  tar -C "$STAGE/nvrtc" -cf - lib | xz -T2 -6 > "$out/nvrtc.tar.xz"
}

status=0
for part in "${PARTS[@]}"; do
  case "$part" in
    rc) pack_rc; dir="$REPO/.bundle" ;;
    llama) pack_llama; dir="$REPO/.bundle-llama" ;;
    llama-src) pack_llama_src; dir="$REPO/.bundle-llama-src" ;;
    compat) pack_compat; dir="$REPO/.bundle-compat"
            if [[ -d "$REPO/.bundle-compat-big" ]]; then
              big=$(du -cm "$REPO"/.bundle-compat-big/* | tail -1 | cut -f1)
              echo "pack-device-bundle: $REPO/.bundle-compat-big: $big MiB"
              # Two Thrust samples (2026-11-27: 64 MiB): at or past one call's limit.
              [[ $big -le $MAX_MIB ]] || echo "pack-device-bundle: warning: .bundle-compat-big" \
                "passes $MAX_MIB MiB: its samples cannot be carried yet" >&2
            fi ;;
    compat-src) pack_compat_src; dir="$REPO/.bundle-compat-src" ;;
    yardsticks) pack_yardsticks; dir="$REPO/.bundle-yardsticks" ;;
    nvrtc) pack_nvrtc; dir="$REPO/.bundle-nvrtc" ;;
    *) echo "pack-device-bundle: unknown part '$part' (rc, llama, llama-src, compat, compat-src, yardsticks, nvrtc)" >&2; exit 2 ;;
  esac
  total=$(du -cm "$dir"/* | tail -1 | cut -f1)
  echo "pack-device-bundle: $dir: $total MiB ($(ls "$dir"))"
  if [[ $total -gt $MAX_MIB ]]; then
    echo "pack-device-bundle: error: $dir is over $MAX_MIB MiB" >&2
    status=1
  fi
done
# The llama steps carry both folders in one call.
if [[ -d "$REPO/.bundle" && -d "$REPO/.bundle-llama" ]]; then
  total=$(du -cm "$REPO"/.bundle/* "$REPO"/.bundle-llama/* | tail -1 | cut -f1)
  echo "pack-device-bundle: .bundle + .bundle-llama: $total MiB"
  [[ $total -le 64 ]] || { echo "pack-device-bundle: error: .bundle + .bundle-llama pass the device tool's 64 MiB" >&2; status=1; }
fi
# The compat step carries both folders in one call.
if [[ -d "$REPO/.bundle" && -d "$REPO/.bundle-compat" ]]; then
  total=$(du -cm "$REPO"/.bundle/* "$REPO"/.bundle-compat/* | tail -1 | cut -f1)
  echo "pack-device-bundle: .bundle + .bundle-compat: $total MiB"
  [[ $total -le 64 ]] || { echo "pack-device-bundle: error: .bundle + .bundle-compat pass the device tool's 64 MiB" >&2; status=1; }
fi
# The yardsticks steps carry both folders in one call.
if [[ -d "$REPO/.bundle" && -d "$REPO/.bundle-yardsticks" ]]; then
  total=$(du -cm "$REPO"/.bundle/* "$REPO"/.bundle-yardsticks/* | tail -1 | cut -f1)
  echo "pack-device-bundle: .bundle + .bundle-yardsticks: $total MiB"
  [[ $total -le 64 ]] || { echo "pack-device-bundle: error: .bundle + .bundle-yardsticks pass the device tool's 64 MiB" >&2; status=1; }
fi
exit $status
