#!/usr/bin/env bash
# Installs everything remote-clang needs on a fresh Debian 12 machine.
# Safe to re-run: each step checks what is already there.
#   - apt: clang 19 toolchain (with libFuzzer and the sanitizers' runtimes:
#     libclang-rt-19-dev), libfabric, flatbuffers, googletest, ninja, ccache,
#     toml++ (rc-server --config), prometheus (a test scrapes rc-server),
#     Slurm and MUNGE (a test runs deploy/slurm on a cluster it starts)
#   - .venv: pinned lit, the pinned CUDA 12.4 wheels and CUDA 13.0's headers
#   - .cuda-root: a --cuda-path tree for clang assembled from those wheels
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
CUDA_ROOT="$ROOT/.cuda-root"
WHEELS="$ROOT/.wheels"

die() { echo "setup.sh: error: $*" >&2; exit 1; }
say() { echo "setup.sh: $*"; }

# libclang-rt-19-dev: the sanitizer runtimes of the sanitizer build
# (scripts/sanitize.sh); clang-19 only recommends it. libomp-19-dev: host
# OpenMP in CUDA programs (-fopenmp, -Xcompiler -fopenmp, FindOpenMP;
# docs/compatibility.md).
APT_PACKAGES=(clang-19 clang-format-19 llvm-19-dev libclang-19-dev llvm-19-tools lld-19
  libclang-rt-19-dev libomp-19-dev
  libfabric-dev libfabric-bin flatbuffers-compiler libflatbuffers-dev
  googletest libgtest-dev cmake ninja-build ccache python3-venv
  binutils file xz-utils
  libssl-dev  # auth/: HMAC-SHA256 and random keys (OpenSSL libcrypto)
  libxxhash-dev  # the content cache's chunk hashes (XXH3-128)
  libtomlplusplus-dev  # rc-server --config (TOML; docs/metrics.md)
  prometheus  # scrapes rc-server --metrics-listen in a test (docs/metrics.md)
  dpkg-dev  # dpkg-shlibdeps: the Debian packages' dependencies (cpack)
  systemd  # systemd-analyze verify: deploy/systemd/rc-server.service
  procps  # /bin/kill: the unit's ExecReload, checked by that verify
  # deploy/slurm run on a cluster the test starts with daemons and files of
  # its own (test/deploy/slurm_single_node.sh): slurmctld, slurmd, srun,
  # munged; any system daemons these start are left alone
  slurm-wlm munge
  iproute2)  # ip netns: the hosts of test/pool on one machine

missing=()
for p in "${APT_PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  [[ "$status" == *"install ok installed"* ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  say "installing apt packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The versions CI builds and tests with; fail loudly on others: the plugin
# links clang 19.1's libraries, and generated flatbuffers headers must match
# the flatbuffers headers they include (flatc 2.0.8, Debian 12's).
clang_ver="$(clang-19 --version)"; clang_ver="${clang_ver%%$'\n'*}"
[[ "$clang_ver" == *"19.1"* ]] || die "need clang 19.1, found: $clang_ver"
flatc_ver="$(flatc --version)"
[[ "$flatc_ver" == *"2.0.8"* ]] || die "need flatc 2.0.8 (same as headers), found: $flatc_ver"
fabric_ver="$(pkg-config --modversion libfabric || true)"
[[ "$fabric_ver" == 1.* ]] || die "libfabric 1.x not found by pkg-config (got: '$fabric_ver')"

# Python venv (Debian's Python is externally managed).
PY=python3
[ -x "$VENV/bin/python" ] || { say "creating $VENV"; "$PY" -m venv "$VENV"; }
PIP_PINS=(lit==18.1.8
  nvidia-cuda-nvcc-cu12==12.4.131
  nvidia-cuda-runtime-cu12==12.4.127
  nvidia-cuda-cccl-cu12==12.9.27  # libcu++ 12.4's cuda::barrier does not parse with clang
  nvidia-cublas-cu12==12.4.5.8
  nvidia-cuda-profiler-api-cu12==12.4.127
  nvidia-curand-cu12==10.3.5.147
  nvidia-cuda-nvrtc-cu12==12.4.127  # NVRTC runs on the client (docs/driver-api.md)
  nvidia-cuda-nvcc==13.0.88
  # CUDA 13.0's headers: the overlay's CUDA 13 toolkit (docs/design/cuda-versions.md)
  nvidia-cuda-runtime==13.0.96 nvidia-cuda-crt==13.0.88 nvidia-cuda-cccl==13.0.85
  numpy==2.2.6 PyYAML==6.0.2  # llama-integration: llama.cpp's gguf-py
  # deploy/kubernetes validated offline (test/deploy), with its dependencies
  kubernetes-validate==1.31.0 jsonschema==4.26.0 jsonschema-specifications==2025.9.1
  referencing==0.37.0 rpds-py==2026.9.1 attrs==26.1.0 importlib_resources==7.1.0
  packaging==26.4 typing_extensions==4.16.0
  clang==19.1.7)  # libclang 19's Python bindings: test/layering/check_class_sizes.py
# Capture whole outputs before matching: under pipefail, `cmd | grep -q` fails
# at random when grep exits early and cmd dies of SIGPIPE (seen in CI).
frozen="$("$VENV/bin/python" -m pip freeze 2>/dev/null || true)"
missing_pins=0
for pin in "${PIP_PINS[@]}"; do
  grep -qx "$pin" <<<"$frozen" || missing_pins=1
done
if [ "$missing_pins" = 1 ]; then
  say "installing pinned wheels into $VENV"
  "$VENV/bin/python" -m pip install -q --no-deps "${PIP_PINS[@]}"
fi
SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
NV="$SITE/nvidia"

# Headers only, of the CUDA 12.4 libraries remote-clang has stubs for
# (runtime/CMakeLists.txt): programs include them, nothing runs their code
# here. Their wheels hold 1.5 GB of libraries: keep just include/. NPP's
# are CUDA 12.9's: its API changed since 12.4 (buffer sizes are size_t),
# and cuda-samples 12.9 call the newer one.
HEADER_PINS=(nvidia-cufft-cu12==11.2.1.3 nvidia-cusparse-cu12==12.3.1.170
  nvidia-cusolver-cu12==11.6.1.9 nvidia-nvjpeg-cu12==12.3.1.117
  nvidia-nvjitlink-cu12==12.4.127 nvidia-npp-cu12==12.4.1.87)
HEADERS="$ROOT/.cuda-headers"
if [ "$(cat "$HEADERS/PINS" 2>/dev/null)" != "${HEADER_PINS[*]}" ]; then
  say "unpacking the headers of ${HEADER_PINS[*]} into $HEADERS"
  rm -rf "$HEADERS" "$HEADERS.download"
  "$VENV/bin/python" -m pip download -q --no-deps -d "$HEADERS.download" "${HEADER_PINS[@]}"
  "$VENV/bin/python" - "$HEADERS" "$HEADERS.download"/*.whl <<'PYEOF'
import sys, zipfile
for wheel in sys.argv[2:]:
    with zipfile.ZipFile(wheel) as z:
        z.extractall(sys.argv[1], [n for n in z.namelist() if "/include/" in n])
PYEOF
  rm -rf "$HEADERS.download"
  echo "${HEADER_PINS[*]}" > "$HEADERS/PINS"
fi
[ -d "$NV/cuda_nvcc" ] || die "CUDA 12.4 nvcc wheel missing under $NV"

# Assemble the CUDA root clang reads with --cuda-path: symlinks into the wheels.
say "assembling $CUDA_ROOT"
rm -rf "$CUDA_ROOT"
mkdir -p "$CUDA_ROOT/bin" "$CUDA_ROOT/include" "$CUDA_ROOT/lib64" "$CUDA_ROOT/nvvm"
for inc in "$NV"/{cuda_runtime,cuda_nvcc,cuda_cccl,cublas,cuda_profiler_api,curand,cuda_nvrtc}/include \
           "$HEADERS"/nvidia/{cufft,cusparse,cusolver,nvjpeg,nvjitlink,npp}/include; do
  [ -d "$inc" ] || continue
  for f in "$inc"/*; do ln -sfn "$f" "$CUDA_ROOT/include/$(basename "$f")"; done
done
ln -sfn "$NV/cuda_nvcc/bin/ptxas" "$CUDA_ROOT/bin/ptxas"
# NVRTC compiles kernels on the client at run time (programs link the real
# library; their modules go to rc-server, docs/driver-api.md).
for f in "$NV"/cuda_nvrtc/lib/libnvrtc*.so*; do
  ln -sfn "$f" "$CUDA_ROOT/lib64/$(basename "$f")"
done
ln -sfn "$NV/cuda_nvrtc/lib/libnvrtc.so.12" "$CUDA_ROOT/lib64/libnvrtc.so"
# libNVVM (NVVM IR to PTX) runs on the host: programs that compile their
# own device code with it (cuda-samples' 7_libNVVM) link the real library.
for d in libdevice include lib64; do
  ln -sfn "$NV/cuda_nvcc/nvvm/$d" "$CUDA_ROOT/nvvm/$d"
done
# clang's CUDA wrapper headers include this one; without the cuRAND wheel
# there is none (never truncate the wheel's own through its link).
[ -e "$CUDA_ROOT/include/curand_mtgp32_kernel.h" ] ||
  : > "$CUDA_ROOT/include/curand_mtgp32_kernel.h"
echo "CUDA Version 12.4.131" > "$CUDA_ROOT/version.txt"
printf '{ "cuda" : { "name" : "CUDA SDK", "version" : "12.4.1" } }\n' > "$CUDA_ROOT/version.json"
# The cu12 nvcc wheel lacks fatbinary; CUDA 13's speaks a newer flag dialect.
FATBIN13="$SITE/nvidia/cu13/bin/fatbinary"
[ -x "$FATBIN13" ] || FATBIN13="$(find "$SITE/nvidia" -name fatbinary -type f -print -quit)"
[ -x "$FATBIN13" ] || die "fatbinary not found in the nvidia-cuda-nvcc 13 wheel"
sed "s|@FATBINARY@|$FATBIN13|" "$ROOT/scripts/fatbinary-wrapper.sh.in" > "$CUDA_ROOT/bin/fatbinary"
chmod +x "$CUDA_ROOT/bin/fatbinary"
# The device linker of relocatable device code (-rdc): CUDA 13's nvlink
# links clang 19 + ptxas 12.4 relocatable sm_90 cubins (docs/manifest.md).
NVLINK13="$(dirname "$FATBIN13")/nvlink"
[ -x "$NVLINK13" ] || die "nvlink not found beside $FATBIN13"
sed "s|@NVLINK@|$NVLINK13|" "$ROOT/scripts/nvlink-wrapper.sh.in" > "$CUDA_ROOT/bin/nvlink"
chmod +x "$CUDA_ROOT/bin/nvlink"

ptxas_ver="$("$CUDA_ROOT/bin/ptxas" --version 2>&1 || true)"
[[ "$ptxas_ver" == *V12.4* ]] || die "ptxas in $CUDA_ROOT is not 12.4: $ptxas_ver"
say "ok: clang-19, flatc 2.0.8, libfabric, lit, CUDA 12.4 root at $CUDA_ROOT"
