#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .bundle-llama
# carried (llama-integration/pack-device-bundle.sh made it). Compares
# llama.cpp built with remote-clang (its GPU work through rc-server) with
# the same commit built locally by nvcc.
#
#   bash llama-integration/device-run.sh [STEP...]
#
# Steps (default: all, in this order); each fits the 10-minute limit of one
# device call, and the reference build resumes where it stopped:
#   unpack    unpack the bundle under $WORK
#   ref       build llama.cpp with nvcc (sm_90) in $WORK/ref
#   models    random models ($MODELS, e.g. "1b:q4_0 7b:q4_0"; needs numpy;
#             else the bundle's tiny model only)
#   ops       test-backend-ops -b CUDA0, remote and local ($OPS: -o filter,
#             default a set of the ops a Llama decode uses; OPS=all: every op)
#   generate  greedy generation (temp 0, $N_PREDICT tokens) remote vs local:
#             token text must be identical
#   bench     llama-bench pp/tg, remote and local
#
#   WORK=DIR (default <repo>/.device-llama: kept between calls of one machine)
#   RC_TRANSPORT=shm|tcp (default shm)   RC_DEVICE_TIMEOUT=s per command (540)
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
BUNDLE="$REPO/.bundle-llama"
WORK="${WORK:-$REPO/.device-llama}"
MODELS="${MODELS:-1b:q4_0 7b:q4_0}"
OPS="${OPS:-MUL_MAT,MUL_MAT_ID,ADD,MUL,RMS_NORM,SOFT_MAX,ROPE,GET_ROWS,SET_ROWS,CPY,CONT,SCALE,GLU,UNARY,FLASH_ATTN_EXT,ARGMAX}"
N_PREDICT="${N_PREDICT:-32}"
PROMPT="${PROMPT:-The capital of France is}"
TMO="${RC_DEVICE_TIMEOUT:-540}"
STEPS=("$@")
[[ ${#STEPS[@]} -gt 0 ]] || STEPS=(unpack ref models ops generate bench)
RC_BIN="$WORK/rc/bin"; LL_BIN="$WORK/llama/bin"; REF_BIN="$WORK/ref/bin"
mkdir -p "$WORK/out"
status=0
say() { echo "== device-run: $*"; }
fail() { echo "FAIL  $*"; status=1; }

# The remote-clang build finds its libraries here, not at its build-time
# rpaths. Only for remote runs: LD_LIBRARY_PATH beats RUNPATH, so the nvcc
# build would load the remote-clang libggml too.
remote() ( export LD_LIBRARY_PATH="$LL_BIN:$WORK/rc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; "$@" )
# Real files only: build-llama.sh adds soname symlinks (libggml-cuda.so.0.rcm)
# for the runtime's own discovery; naming them explicitly costs nothing.
manifests() { find "$LL_BIN" -maxdepth 1 -type f -name '*.rcm' 2>/dev/null | sort; }
export RC_MANIFEST="$(manifests | tr '\n' ':')"

step_unpack() {
  for f in llama-rc rc llama-src; do
    [[ -f "$BUNDLE/$f.tar.xz" ]] || { fail "unpack: $BUNDLE/$f.tar.xz missing"; return; }
  done
  rm -rf "$WORK/llama" "$WORK/rc" "$WORK/src"
  mkdir -p "$WORK/src"
  tar -C "$WORK" -xJf "$BUNDLE/llama-rc.tar.xz" && tar -C "$WORK" -xJf "$BUNDLE/rc.tar.xz" &&
    tar -C "$WORK/src" -xJf "$BUNDLE/llama-src.tar.xz" || { fail "unpack"; return; }
  export RC_MANIFEST="$(manifests | tr '\n' ':')"
  nvidia-smi -L; nvcc --version | tail -2
  ls "$LL_BIN"
}

step_ref() {
  # Same options as build-llama.sh, but nvcc and the host's gcc.
  if [[ ! -f "$WORK/ref/build.ninja" ]]; then
    cmake -S "$WORK/src/llama.cpp" -B "$WORK/ref" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_CUDA_NCCL=OFF -DGGML_NATIVE=OFF \
      -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
      > "$WORK/out/ref-configure.log" 2>&1 || { tail -30 "$WORK/out/ref-configure.log"; fail "ref: configure"; return; }
  fi
  # Stops short of the device call's limit; the next call resumes.
  timeout "$TMO" ninja -C "$WORK/ref" -j "$(nproc)" test-backend-ops llama-completion llama-bench \
    > "$WORK/out/ref-build.log" 2>&1
  local rc=$?
  tail -3 "$WORK/out/ref-build.log"
  [[ $rc -eq 124 ]] && { say "ref: build not finished, run the ref step again"; status=1; return; }
  [[ $rc -eq 0 ]] || { grep -m20 -B2 -A5 "error" "$WORK/out/ref-build.log"; fail "ref: build"; }
}

step_models() {
  mkdir -p "$WORK/models"
  cp -n "$BUNDLE/tiny-q4_0.gguf" "$WORK/models/" 2>/dev/null
  if ! python3 -c "import numpy" 2>/dev/null; then
    say "models: no numpy here: only the bundle's tiny model"; return
  fi
  for m in $MODELS; do
    local shape="${m%%:*}" type="${m##*:}" out="$WORK/models/$shape-$type.gguf"
    [[ -f "$out" ]] && continue
    PYTHONPATH="$WORK/src/llama.cpp/gguf-py" python3 "$BUNDLE/make-random-model.py" \
      --llama-src "$WORK/src/llama.cpp" --shape "$shape" --type "$type" --out "$out.tmp" &&
      mv "$out.tmp" "$out" || fail "models: $m"
  done
  ls -la "$WORK/models"
}

SERVER_PID=""
start_server() {
  case "${RC_TRANSPORT:-shm}" in
    shm) export RC_SERVER="shm://rc-llama-$$" ;;
    tcp) export RC_SERVER="tcp://127.0.0.1:$(( 20000 + RANDOM % 20000 ))" ;;
  esac
  local args=() m
  for m in $(manifests); do args+=(--manifest "$m"); done
  # env execs rc-server: $! is the server itself, so SIGINT reaches it.
  env LD_LIBRARY_PATH="$WORK/rc/lib" "$RC_BIN/rc-server" --listen "$RC_SERVER" "${args[@]}" > "$WORK/out/server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 300); do
    grep -q "listening on" "$WORK/out/server.log" && break
    kill -0 $SERVER_PID 2>/dev/null || break
    sleep 0.1
  done
  head -3 "$WORK/out/server.log"
  grep -q "listening on" "$WORK/out/server.log" || { fail "rc-server did not start"; return 1; }
}
stop_server() {
  [[ -n "$SERVER_PID" ]] || return 0
  kill -INT "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
  echo "server log tail:"; tail -5 "$WORK/out/server.log"
}
trap stop_server EXIT

step_ops() {
  local filter=(-o "$OPS"); [[ "$OPS" == all ]] && filter=()
  say "ops: local (nvcc)"
  timeout "$TMO" "$REF_BIN/test-backend-ops" test -b CUDA0 "${filter[@]}" > "$WORK/out/ops-local.log" 2>&1
  echo "local exit $?: $(grep -E 'tests passed|Backend CUDA0' "$WORK/out/ops-local.log" | tail -2 | tr '\n' ' ')"
  start_server || return
  say "ops: remote ($RC_SERVER)"
  remote timeout "$TMO" "$LL_BIN/test-backend-ops" test -b CUDA0 "${filter[@]}" > "$WORK/out/ops-remote.log" 2>&1
  local rc=$?
  stop_server
  echo "remote exit $rc: $(grep -E 'tests passed|Backend CUDA0' "$WORK/out/ops-remote.log" | tail -2 | tr '\n' ' ')"
  grep -E "FAIL|error" "$WORK/out/ops-remote.log" | head -20 || true
  [[ $rc -eq 0 ]] || fail "ops: remote test-backend-ops exit $rc (log $WORK/out/ops-remote.log)"
}

# Greedy decode; prints only the generated text (stdout), logs to a file.
generate() { # $1 binary dir, $2 model, $3 label (remote-clang binaries: under `remote`)
  timeout "$TMO" "$1/llama-completion" -m "$2" -p "$PROMPT" -n "$N_PREDICT" --temp 0 --top-k 1 \
    --seed 1 -ngl 99 -no-cnv --no-warmup -c 512 --ignore-eos \
    > "$WORK/out/gen-$3.txt" 2> "$WORK/out/gen-$3.log"
}

step_generate() {
  local models=("$WORK"/models/*.gguf) m name
  [[ -e "${models[0]}" ]] || { fail "generate: no models (run the models step)"; return; }
  start_server || return
  for m in "${models[@]}"; do
    name="$(basename "$m" .gguf)"
    remote generate "$LL_BIN" "$m" "$name-remote" || fail "generate: remote $name (exit $?, $WORK/out/gen-$name-remote.log)"
  done
  stop_server
  for m in "${models[@]}"; do
    name="$(basename "$m" .gguf)"
    generate "$REF_BIN" "$m" "$name-local" || fail "generate: local $name (exit $?)"
    if cmp -s "$WORK/out/gen-$name-remote.txt" "$WORK/out/gen-$name-local.txt"; then
      echo "PASS  generate $name: remote == local ($(wc -c < "$WORK/out/gen-$name-local.txt") bytes)"
    else
      fail "generate $name: remote and local text differ"
      diff <(tr ' ' '\n' < "$WORK/out/gen-$name-local.txt") <(tr ' ' '\n' < "$WORK/out/gen-$name-remote.txt") | head -10 || true
    fi
    grep -h "eval time" "$WORK/out/gen-$name-local.log" "$WORK/out/gen-$name-remote.log" | sed 's/^/      /'
  done
}

step_bench() {
  local models=("$WORK"/models/*.gguf) m
  [[ -e "${models[0]}" ]] || { fail "bench: no models"; return; }
  for m in "${models[@]}"; do
    say "bench local $(basename "$m")"
    timeout "$TMO" "$REF_BIN/llama-bench" -m "$m" -ngl 99 -p 512 -n 128 -r 3 -o md 2>&1 | grep "^|"
  done
  start_server || return
  for m in "${models[@]}"; do
    say "bench remote $(basename "$m")"
    remote timeout "$TMO" "$LL_BIN/llama-bench" -m "$m" -ngl 99 -p 512 -n 128 -r 3 -o md 2>&1 | grep "^|" ||
      fail "bench: remote $(basename "$m")"
  done
  stop_server
}

for s in "${STEPS[@]}"; do
  say "$s"
  case "$s" in
    unpack|ref|models|ops|generate|bench) "step_$s" ;;
    *) echo "device-run: unknown step $s" >&2; exit 2 ;;
  esac
done
echo "device-run: $([[ $status -eq 0 ]] && echo OK || echo FAILED) (logs in $WORK/out)"
exit $status
