#!/usr/bin/env bash
# The main job: build the toolchain, build the sample CUDA project with
# remote-clang++, show the samples' manifests, then run the samples through
# rc-server on a GPU: the server named by RC_SERVER, else a local GPU.
# With neither, it says so after the build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${RC_BUILD_DIR:-$ROOT/build}"
SAMPLES_BUILD="$BUILD/samples"

echo "== 1/4 building remote-clang (toolchain, runtime, rc-server) in $BUILD"
bash "$ROOT/scripts/build.sh" remote_clang_driver rcplugin rc-link rc-manifest rc_cudart rc-server

echo "== 2/4 building test/samples/project with remote-clang++"
# The drivers' folder goes on PATH: CMake then also finds the CUDA overlay's
# nvcc there, which is how it locates a Clang CUDA compiler's toolkit.
export PATH="$BUILD/bin:$PATH"
if [ ! -f "$SAMPLES_BUILD/build.ninja" ]; then
  cmake -S "$ROOT/test/samples/project" -B "$SAMPLES_BUILD" -G Ninja \
    -DCMAKE_CXX_COMPILER=remote-clang++ -DCMAKE_CUDA_COMPILER=remote-clang++
fi
cmake --build "$SAMPLES_BUILD"

echo "== 3/4 manifests"
for m in "$SAMPLES_BUILD"/*.rcm; do
  echo "-- $(basename "$m")"
  "$BUILD/bin/rc-manifest" list "$m"
  "$BUILD/bin/rc-manifest" verify "$m"
done

echo "== 4/4 running the samples through rc-server"
if [ -n "${RC_SERVER:-}" ]; then
  echo "using the server named by RC_SERVER=$RC_SERVER (it must have been started with"
  echo "  rc-server --listen ... --manifest <each sample>.rcm)"
  exec bash "$ROOT/scripts/run-samples.sh" --samples "$SAMPLES_BUILD"
elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "local GPU: $(nvidia-smi -L | head -1)"
  exec bash "$ROOT/scripts/run-samples.sh" --server "$BUILD/bin/rc-server" --samples "$SAMPLES_BUILD"
else
  cat <<MSG
No GPU here and RC_SERVER is not set: the samples were built and their manifests
checked, but nothing ran. To run them, start on a GPU machine
    rc-server keygen rc.key
    rc-server --listen tcp://0.0.0.0:7070 --auth-key-file rc.key --manifest <sample>.rcm ...
copy rc.key here (mode 0600) and re-run with
    RC_SERVER=tcp://<gpu-host>:7070 RC_AUTH_KEY_FILE=rc.key bash scripts/main.sh
MSG
fi
