#!/usr/bin/env bash
# The one runner on the GPU machine (device tool), from the repository root,
# with the folders scripts/pack-device-bundle.sh made carried: `.bundle`
# (remote-clang) for every step, `.bundle-llama` (llama.cpp built by
# remote-clang) with it for the llama.cpp steps, `.bundle-llama-src` (or a
# prebuilt `.bundle-ref`) in a call of its own for the nvcc reference;
# `.bundle-nvrtc` (the client's NVRTC) with `.bundle` for the samples.
#
#   bash scripts/device-run.sh [STEP...]     (default: unpack samples gtests copies)
#
# Each step fits the 10-minute limit of one device call; what unpack and ref
# leave under $WORK stays while the machine stays warm.
#   unpack    unpack what was carried under $WORK
#   samples   every sample through rc-server on the GPU, over each of
#             $RC_TRANSPORTS
#   gtests    rc-server's and cuBLAS's GoogleTest suites against the GPU(s);
#             the tests named Zz* (they fault the GPU on purpose, which
#             poisons the process: CUDA's rule) in a process of their own
#   copies    the copy_sizes sample at every size, transport and RMA setting
#             (scripts/run-copy-matrix.sh)
#   transport the transport's own numbers (docs/transport.md, "Numbers"):
#             round trips, echo throughput, RMA read-backs of llama.cpp's
#             logits sizes next to a plain loopback socket ($ITERS, 2000)
#   ref       build llama.cpp with nvcc (sm_90) in $WORK/ref; nothing to do
#             where unpack found a prebuilt one (.bundle-ref, made by
#             llama-integration/pack-ref-bundle.sh)
#   models    random models ($MODELS, e.g. "1b:q4_0 7b:q4_0"; needs numpy)
#   ops       test-backend-ops test -b CUDA0, remote and local: every test
#             that passes locally must pass remotely ($OPS: an -o filter,
#             default all; $OPS_JOBS processes in parallel, default 1;
#             OPS_KEEP_LOCAL=1 reuses the local log of an earlier call;
#             OPS_LOCAL_ONLY=1 runs only that; OPS_PARTS splits ops by
#             parameters, see op_parts)
#   generate  greedy generation (temp 0, $N_PREDICT tokens) remote vs local,
#             with CUDA graphs on and with GGML_CUDA_DISABLE_GRAPHS=1: the
#             text must be identical
#   server    llama-server, 4 slots, 8 concurrent requests, remote and local:
#             all complete, answers identical
#   bench     llama-bench pp/tg, remote and local
#   multigpu  with two or more GPUs: greedy generation split by layer over
#             every GPU (-sm layer), remote vs local, graphs on and off
#   kernels   test-backend-ops perf, nvcc build vs remote-clang build, op by
#             op ($KERNEL_OPS, $KERNEL_PARAMS: its -o and -p filters): the
#             kernels' own time (clang vs nvcc code), round trips amortised
#   compat-local  build the carried cuda-samples (.bundle-compat-src) with
#             this machine's nvcc, for its GPU's architecture only
#             (compat/nvcc-one-arch.sh), in $WORK/compat/local; resumes
#   compat    run what remote-clang built (.bundle-compat, or
#             .bundle-compat-big in a call of its own) over tcp and shm
#             and the nvcc build locally (compat/run_samples.py; $COMPAT_ONLY
#             a regex, $COMPAT_JOBS at once, default 4); results in
#             $OUT/compat-run.json
#   short     whole-process time of short cuda-samples (vectorAdd,
#             matrixMul, reduction, deviceQuery), local vs remote over shm
#             and tcp, with and without --isolation process
#             (bench/short_programs.py; builds just those with nvcc first;
#             $SHORT_REPS, default 5); results in $OUT
#   mps       rc-server's MPS GPU tests alone (rc_server_mps_tests: faults
#             beside other sessions of one MPS server, the daemon's
#             supervision, quotas' MPS bounds; their MEASURED lines fill
#             docs/design/gpu-sharing.md), then bench/gpu-sharing.sh
#             ($SHARING_CONFIGS, default all: split it over two calls)
#   yardsticks-local  build the carried suites' trees (.bundle-yardsticks:
#             Rodinia and SHOC, each with its definition in suites/, or in
#             $RC_YARDSTICK_SUITES) with this machine's nvcc, for its GPU's
#             architecture only, all suites at once (compat/yardstick.py
#             local-build)
#   yardsticks  run what remote-clang built of them over tcp and shm and the
#             nvcc build locally, outputs compared after masking
#             (compat/yardstick.py run; $YARDSTICK_ONLY a regex,
#             $YARDSTICK_JOBS programs at once per suite, default 4;
#             $YARDSTICK_DEADLINE seconds, default 300, after which no run
#             starts); $OUT/yardstick-<suite>-run.json and
#             $OUT/yardstick-logs.tar.gz. `unpack yardsticks-local
#             yardsticks` fit one call.
#
#   WORK=DIR (default <repo>/.device-work)   RC_DEVICE_TIMEOUT=s per command (540)
#   RC_TRANSPORTS (default "shm tcp"): samples and copies run over each, the
#   llama.cpp steps over the first. Logs: $OUT (the device tool brings it
#   back) for gtests, else $WORK/out.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LLAMA_SCRIPTS="$REPO/llama-integration"
BUNDLE_RC="$REPO/.bundle"
BUNDLE_LLAMA="$REPO/.bundle-llama"
BUNDLE_SRC="$REPO/.bundle-llama-src"
BUNDLE_REF="$REPO/.bundle-ref"
BUNDLE_COMPAT="$REPO/.bundle-compat"
BUNDLE_COMPAT_SRC="$REPO/.bundle-compat-src"
BUNDLE_NVRTC="$REPO/.bundle-nvrtc"
BUNDLE_YARDSTICKS="$REPO/.bundle-yardsticks"
# The yardstick suites' definitions: kept outside the repository, carried
# beside their trees (pack-device-bundle.sh yardsticks).
YARDSTICK_SUITES="${RC_YARDSTICK_SUITES:-$BUNDLE_YARDSTICKS/suites}"
WORK="${WORK:-$REPO/.device-work}"
MODELS="${MODELS:-1b:q4_0 7b:q4_0}"
OPS="${OPS:-all}"
N_PREDICT="${N_PREDICT:-128}"
PROMPT="${PROMPT:-The capital of France is}"
TMO="${RC_DEVICE_TIMEOUT:-540}"
TRANSPORTS="${RC_TRANSPORTS:-shm tcp}"
STEPS=("$@")
[[ ${#STEPS[@]} -gt 0 ]] || STEPS=(unpack samples gtests copies)
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
  local any=0
  if [[ -f "$BUNDLE_SRC/llama-src.tar.xz" ]]; then
    rm -rf "$WORK/src" && mkdir -p "$WORK/src" &&
      tar -C "$WORK/src" -xJf "$BUNDLE_SRC/llama-src.tar.xz" || { fail "unpack: source"; return; }
    any=1
  fi
  if [[ -f "$BUNDLE_RC/rc.tar.xz" ]]; then
    rm -rf "$WORK/rc" && tar -C "$WORK" -xJf "$BUNDLE_RC/rc.tar.xz" || { fail "unpack: remote-clang"; return; }
    any=1
  fi
  # The client's NVRTC, beside the runtime's libraries (nvrtc_saxpy).
  if [[ -f "$BUNDLE_NVRTC/nvrtc.tar.xz" ]]; then
    mkdir -p "$WORK/rc" && tar -C "$WORK/rc" -xJf "$BUNDLE_NVRTC/nvrtc.tar.xz" ||
      { fail "unpack: NVRTC"; return; }
    any=1
  fi
  if [[ -f "$BUNDLE_LLAMA/llama.tar.xz" ]]; then
    rm -rf "$WORK/llama" && tar -C "$WORK" -xJf "$BUNDLE_LLAMA/llama.tar.xz" ||
      { fail "unpack: llama.cpp built by remote-clang"; return; }
    export RC_MANIFEST="$(manifests | tr '\n' ':')"
    ls "$LL_BIN"
    any=1
  fi
  if [[ -f "$BUNDLE_COMPAT_SRC/cuda-samples.tar.xz" ]]; then
    rm -rf "$WORK/compat/cuda-samples" && mkdir -p "$WORK/compat" &&
      tar -C "$WORK/compat" -xJf "$BUNDLE_COMPAT_SRC/cuda-samples.tar.xz" ||
      { fail "unpack: cuda-samples"; return; }
    any=1
  fi
  # .bundle-compat-big (the samples too large to travel with the others)
  # replaces them in a call of its own.
  local part
  for part in "$BUNDLE_COMPAT" "$BUNDLE_COMPAT-big"; do
    [[ -f "$part/compat-remote.tar.xz" ]] || continue
    rm -rf "$WORK/compat/remote" && mkdir -p "$WORK/compat" &&
      tar -C "$WORK/compat" -xJf "$part/compat-remote.tar.xz" ||
      { fail "unpack: cuda-samples built by remote-clang ($part)"; return; }
    any=1
  done
  if [[ -f "$BUNDLE_YARDSTICKS/yardsticks.tar.xz" ]]; then
    rm -rf "$WORK/yardsticks" && tar -C "$WORK" -xJf "$BUNDLE_YARDSTICKS/yardsticks.tar.xz" ||
      { fail "unpack: the yardstick suites"; return; }
    any=1
  fi
  if [[ -f "$BUNDLE_REF/ref.tar.xz" ]]; then
    rm -rf "$WORK/ref" && tar -C "$WORK" -xJf "$BUNDLE_REF/ref.tar.xz" ||
      { fail "unpack: nvcc reference build"; return; }
    cp "$BUNDLE_REF/SOURCE" "$WORK/ref/PREBUILT"
    # Built elsewhere by the nvcc this machine has, or the comparison is off.
    grep -qF "nvcc: $(nvcc --version | tail -1)" "$WORK/ref/PREBUILT" ||
      say "unpack: WARNING: the prebuilt reference's nvcc differs from this machine's: $(cat "$WORK/ref/PREBUILT")"
    any=1
  fi
  [[ $any -eq 1 ]] || fail "unpack: none of $BUNDLE_RC, $BUNDLE_LLAMA, $BUNDLE_SRC, $BUNDLE_REF, $BUNDLE_COMPAT, $BUNDLE_COMPAT_SRC, $BUNDLE_YARDSTICKS was carried"
  nvidia-smi -L; nvcc --version | tail -2
}

# --- remote-clang's own GPU tests (.bundle)
need_rc() { [[ -x "$RC_BIN/rc-server" ]] || { fail "$1: no $RC_BIN/rc-server (carry .bundle, run unpack)"; return 1; }; }
# The samples carry their own manifests; llama.cpp's (RC_MANIFEST) are not
# theirs, nor is the llama.cpp steps' server (RC_SERVER).
rc_env() ( unset RC_MANIFEST RC_SERVER; export LD_LIBRARY_PATH="$WORK/rc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; "$@" )

step_samples() {
  need_rc samples || return
  rc_env bash "$REPO/scripts/run-samples.sh" --server "$RC_BIN/rc-server" \
    --samples "$WORK/rc/samples" --transports "$TRANSPORTS" || fail "samples"
}

step_gtests() {
  need_rc gtests || return
  local logs="${OUT:-$WORK/out}" t part filter log ran=0
  for t in rc_server_gpu_tests rc_server_tests rc_server_mps_tests rc_cublas_gpu_tests rc_runtime_dlopen_gpu_tests; do
    [[ -x "$RC_BIN/$t" ]] || continue
    ran=1
    for part in main poison; do
      filter='-*Zz*'; [[ $part == poison ]] && filter='*Zz*'
      log="$logs/$t.$part.log"
      echo "== $t --gtest_filter=$filter"
      RC_TEST_FATBIN="$RC_BIN/gpu_kernels.fatbin" RC_SERVER_BIN="$RC_BIN/rc-server" \
        RC_TEST_DLOPEN_PROG="$RC_BIN/rc_rt_prog_dlopen_cuda" RC_TEST_DLOPEN_LIBS="$WORK/rc/cuda-names" \
        rc_env "$RC_BIN/$t" --gtest_filter="$filter" > "$log" 2>&1 ||
        { fail "gtests: $t ($part, $log)"; grep -B5 -A25 'Failure' "$log" | head -80; }
      grep -E '^\[==========\] .* ran|^\[  (PASSED|FAILED|SKIPPED)  \]|^[0-9]+ devices' "$log"
    done
  done
  [[ $ran -eq 1 ]] || fail "gtests: no test binaries in $RC_BIN"
}

step_copies() {
  need_rc copies || return
  rc_env bash "$REPO/scripts/run-copy-matrix.sh" --server "$RC_BIN/rc-server" \
    --program "$WORK/rc/samples/copy_sizes" --transports "$TRANSPORTS" || fail "copies"
}

step_transport() {
  need_rc transport || return
  local t bytes
  for t in $TRANSPORTS; do
    rc_env "$RC_BIN/rc_transport_bench" "$t" 20000 || fail "transport: $t round trips"
    for bytes in 131072 525312 4194304; do
      rc_env "$RC_BIN/rc_transport_bench" "$t" readback "$bytes" "${ITERS:-2000}" ||
        fail "transport: $t read-back of $bytes bytes"
    done
  done
}

# --- llama.cpp built by remote-clang (.bundle-llama) against the nvcc build
step_ref() {
  if [[ -f "$WORK/ref/PREBUILT" ]]; then
    say "ref: prebuilt, unpacked from .bundle-ref: $(head -1 "$WORK/ref/PREBUILT")"
    return
  fi
  # Same options as build-llama.sh, but nvcc and the host's gcc; and the RPC
  # backend, for the performance comparison with llama.cpp's own remoting.
  if [[ ! -f "$WORK/ref/build.ninja" ]]; then
    cmake -S "$WORK/src/llama.cpp" -B "$WORK/ref" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_CUDA_NCCL=OFF -DGGML_NATIVE=OFF -DGGML_RPC=ON \
      -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
      > "$WORK/out/ref-configure.log" 2>&1 || { tail -30 "$WORK/out/ref-configure.log"; fail "ref: configure"; return; }
  fi
  # Stops short of the device call's limit; the next call resumes.
  timeout "$TMO" ninja -C "$WORK/ref" -j "$(nproc)" test-backend-ops llama-completion llama-bench \
    llama-server ggml-rpc-server \
    > "$WORK/out/ref-build.log" 2>&1
  local rc=$?
  tail -3 "$WORK/out/ref-build.log"
  [[ $rc -eq 124 ]] && { say "ref: build not finished, run the ref step again"; status=1; return; }
  [[ $rc -eq 0 ]] || { grep -m20 -B2 -A5 "error" "$WORK/out/ref-build.log"; fail "ref: build"; }
}

step_models() {
  mkdir -p "$WORK/models"
  python3 -c "import numpy" 2>/dev/null || { fail "models: no numpy on this machine"; return; }
  for m in $MODELS; do
    local shape="${m%%:*}" type="${m##*:}"
    local out="$WORK/models/$shape-$type.gguf"
    [[ -f "$out" ]] && continue
    PYTHONPATH="$WORK/src/llama.cpp/gguf-py" python3 "$LLAMA_SCRIPTS/make-random-model.py" \
      --llama-src "$WORK/src/llama.cpp" --shape "$shape" --type "$type" --out "$out.tmp" &&
      mv "$out.tmp" "$out" || fail "models: $m"
  done
  ls -la "$WORK/models"
}

SERVER_PID=""
start_server() {
  case "${TRANSPORTS%% *}" in
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

# test-backend-ops in $OPS_JOBS processes at once, each with a share of the
# op names (round-robin over the reference build's --list-ops), so a whole
# run fits one device call; the shard logs are concatenated. $1 binary dir,
# $2 label. Remote processes are separate clients of one rc-server.
OPS_JOBS="${OPS_JOBS:-1}"
op_lists() {
  if [[ "$OPS" != all ]]; then echo "$OPS"; return; fi
  if [[ "$OPS_JOBS" -le 1 ]]; then echo ""; return; fi
  "$REF_BIN/test-backend-ops" --list-ops | sed -n 's/^  \([A-Z_0-9]*\)$/\1/p' |
    awk -v n="$OPS_JOBS" '{ i = NR % n; s[i] = s[i] (s[i] ? "," : "") $1 }
                          END { for (i = 0; i < n; i++) if (s[i]) print s[i] }'
}
# OPS_PARTS="OP@REGEX ...": one process per part instead, test-backend-ops
# -o OP -p REGEX (REGEX on the test's parameters; empty: all), to spread one
# big op (FLASH_ATTN_EXT has 5000 tests) over several processes.
op_parts() {
  if [[ -n "${OPS_PARTS:-}" ]]; then (set -f; printf '%s\n' $OPS_PARTS); else op_lists; fi
}
run_ops() {
  local lists list i=0 pids=() rc=0 pid
  mapfile -t lists < <(op_parts)
  for list in "${lists[@]}"; do
    local filter=() regex="${list#*@}"
    [[ -n "$list" ]] && filter=(-o "${list%%@*}")
    [[ "$list" == *@* && -n "$regex" ]] && filter+=(-p "$regex")
    timeout "$TMO" "$1/test-backend-ops" test -b CUDA0 "${filter[@]}" \
      > "$WORK/out/ops-$2.$i.log" 2>&1 &
    pids+=($!); i=$((i + 1))
  done
  for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
  cat "$WORK"/out/ops-"$2".[0-9]*.log > "$WORK/out/ops-$2.log"
  rm -f "$WORK"/out/ops-"$2".[0-9]*.log
  echo "$2: ${#lists[@]} process(es), last failing exit $rc, $(grep -acE 'backends passed' "$WORK/out/ops-$2.log") finished"
}
step_ops() {
  say "ops: local (nvcc) and remote, $OPS_JOBS process(es) each"
  local runs
  runs="$(op_parts | wc -l)"
  # OPS_KEEP_LOCAL=1: reuse the local log of an earlier call (same machine).
  [[ "${OPS_KEEP_LOCAL:-0}" == 1 && -s "$WORK/out/ops-local.log" ]] || run_ops "$REF_BIN" local
  # OPS_LOCAL_ONLY=1: the local half only (it fits after the ref build).
  [[ "${OPS_LOCAL_ONLY:-0}" == 1 ]] && return
  start_server || return
  remote run_ops "$LL_BIN" remote
  stop_server
  python3 "$LLAMA_SCRIPTS/ops-summary.py" --runs "$runs" "$WORK/out/ops-local.log" "$WORK/out/ops-remote.log" ||
    fail "ops: remote test-backend-ops (log $WORK/out/ops-remote.log)"
}

generate() { # $1 binary dir, $2 model, $3 label (remote-clang binaries: under `remote`)
  # $GEN_ARGS: extra llama-completion options (the multigpu step's split).
  timeout "$TMO" "$1/llama-completion" -m "$2" -p "$PROMPT" -n "$N_PREDICT" --temp 0 --top-k 1 \
    --seed 1 -ngl 99 -no-cnv --no-warmup -c 512 --ignore-eos ${GEN_ARGS:-} \
    > "$WORK/out/gen-$3.txt" 2> "$WORK/out/gen-$3.log"
}

# Remote, then local, generation of every model with graphs on and off; the
# texts must be identical. $1: label suffix.
step_generate() {
  local models=("$WORK"/models/*.gguf) m name g tag="${1:-}"
  [[ -e "${models[0]}" ]] || { fail "generate: no models (run the models step)"; return; }
  start_server || return
  for g in graphs nographs; do
    for m in "${models[@]}"; do
      name="$(basename "$m" .gguf)-$g$tag"
      if [[ $g == nographs ]]; then
        GGML_CUDA_DISABLE_GRAPHS=1 remote generate "$LL_BIN" "$m" "$name-remote"
      else
        remote generate "$LL_BIN" "$m" "$name-remote"
      fi || fail "generate: remote $name (exit $?, $WORK/out/gen-$name-remote.log)"
    done
  done
  stop_server
  grep -h "graph\|rc-server" "$WORK/out/server.log" | tail -3
  for g in graphs nographs; do
    for m in "${models[@]}"; do
      name="$(basename "$m" .gguf)-$g$tag"
      if [[ $g == nographs ]]; then
        GGML_CUDA_DISABLE_GRAPHS=1 generate "$REF_BIN" "$m" "$name-local"
      else
        generate "$REF_BIN" "$m" "$name-local"
      fi || fail "generate: local $name (exit $?)"
      if [[ -s "$WORK/out/gen-$name-local.txt" ]] &&
         cmp -s "$WORK/out/gen-$name-remote.txt" "$WORK/out/gen-$name-local.txt"; then
        echo "PASS  generate $name: remote == local ($(wc -c < "$WORK/out/gen-$name-local.txt") bytes)"
      else
        fail "generate $name: remote and local text differ"
        diff <(tr ' ' '\n' < "$WORK/out/gen-$name-local.txt") <(tr ' ' '\n' < "$WORK/out/gen-$name-remote.txt") | head -10 || true
      fi
      grep -h "eval time" "$WORK/out/gen-$name-local.log" "$WORK/out/gen-$name-remote.log" | sed 's/^/      /'
    done
  done
}

# llama-server with 4 slots answering 8 requests at once, remote then local.
serve() { # $1 binary dir, $2 model, $3 label
  local port=$(( 30000 + RANDOM % 20000 ))
  "$1/llama-server" -m "$2" -ngl 99 -np 4 -c 4096 --port "$port" --host 127.0.0.1 \
    --temp 0 --seed 1 --no-warmup > "$WORK/out/server-$3.log" 2>&1 &
  local pid=$!
  python3 "$LLAMA_SCRIPTS/server-check.py" --url "http://127.0.0.1:$port" --requests 8 \
    --n-predict 64 --out "$WORK/out/server-$3.json"
  local rc=$?
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  return $rc
}

step_server() {
  local models=("$WORK"/models/*.gguf) m="${SERVER_MODEL:-}"
  [[ -n "$m" ]] || m="$(ls "$WORK"/models/1b-*.gguf 2>/dev/null | head -1)"
  [[ -n "$m" ]] || m="${models[0]}"
  [[ -e "$m" ]] || { fail "server: no models"; return; }
  say "server: $(basename "$m"), 4 slots, 8 concurrent requests"
  start_server || return
  remote serve "$LL_BIN" "$m" remote || fail "server: remote requests"
  stop_server
  serve "$REF_BIN" "$m" local || fail "server: local requests"
  python3 "$LLAMA_SCRIPTS/server-check.py" --compare "$WORK/out/server-local.json" "$WORK/out/server-remote.json" ||
    fail "server: remote answers differ from local"
}

step_multigpu() {
  local gpus
  gpus="$(nvidia-smi -L | grep -c '^GPU')"
  [[ $gpus -ge 2 ]] || { say "multigpu: $gpus GPU here, needs 2: skipped"; return; }
  GEN_ARGS="-sm layer" step_generate "-sm-layer"
  # Every remote session must have used both GPUs: rc-server names the
  # devices of each session when it closes (llama-completion does not log
  # its devices at the default verbosity).
  local sessions split
  sessions="$(grep -c "closed:" "$WORK/out/server.log")"
  split="$(grep -c "closed:.*device(s) 0,1" "$WORK/out/server.log")"
  echo "      $split of $sessions remote session(s) used devices 0 and 1"
  [[ $sessions -gt 0 && $split -eq $sessions ]] || fail "multigpu: a remote session did not use both GPUs"
  grep "closed:" "$WORK/out/server.log" | sed 's/^/      /'
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

# test-backend-ops perf repeats an op hundreds of times in one graph and
# times whole graphs, so a remote run's round trip is spread over them all:
# the ratio is mostly the kernels' own speed, clang 19's code vs nvcc's.
KERNEL_OPS="${KERNEL_OPS:-MUL_MAT}"
KERNEL_PARAMS="${KERNEL_PARAMS:-type_a=(q4_0|f16),type_b=f32,m=4096,n=(1|2|4|8|512),k=14336}"
perf_ops() { # $1 binary dir, $2 label
  timeout "$TMO" "$1/test-backend-ops" perf -b CUDA0 -o "$KERNEL_OPS" -p "$KERNEL_PARAMS" \
    > "$WORK/out/kernels-$2.log" 2>&1 || fail "kernels: $2 (exit $?, $WORK/out/kernels-$2.log)"
}
step_kernels() {
  perf_ops "$REF_BIN" local
  start_server || return
  remote perf_ops "$LL_BIN" remote
  stop_server
  # "  OP(params):  N runs -  T us/run - ..." in both logs, matched by OP(params).
  awk '/ us\/run/ { for (i = 1; i < NF; i++) if ($(i + 1) == "us/run") t = $i
                    if (FILENAME ~ /local/) loc[$1] = t; else rem[$1] = t }
       END { printf "%-12s %-12s %-7s %s\n", "local us", "remote us", "ratio", "op"
             for (k in loc) if (k in rem)
               printf "%-12s %-12s %-7.3f %s\n", loc[k], rem[k], loc[k] / rem[k], k }' \
    "$WORK/out/kernels-local.log" "$WORK/out/kernels-remote.log"
}

# --- cuda-samples (.bundle-compat, .bundle-compat-src): docs/yardsticks.md
step_compat_local() {
  local src="$WORK/compat/cuda-samples" build="$WORK/compat/local"
  [[ -f "$src/CMakeLists.txt" ]] || { fail "compat-local: no $src (carry .bundle-compat-src, run unpack)"; return; }
  if [[ ! -f "$build/build.ninja" ]]; then
    cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_COMPILER="$REPO/compat/nvcc-one-arch.sh" > "$WORK/out/compat-configure.log" 2>&1 ||
      { tail -30 "$WORK/out/compat-configure.log"; fail "compat-local: configure"; return; }
  fi
  # -k 0: a sample nvcc cannot build here is a "no-build" row, not the end.
  timeout "$TMO" ninja -C "$build" -k 0 -j "$(nproc)" > "$WORK/out/compat-build.log" 2>&1
  local rc=$?
  tail -3 "$WORK/out/compat-build.log"
  [[ $rc -eq 124 ]] && { say "compat-local: build not finished, run the step again"; status=1; return; }
  [[ $rc -eq 0 ]] || say "compat-local: some samples do not build with nvcc here: $(grep -c '^FAILED' "$WORK/out/compat-build.log") targets"
}

step_short() {
  need_rc short || return
  local src="$WORK/compat/cuda-samples" build="$WORK/compat/local"
  [[ -f "$WORK/compat/remote/rows.json" && -f "$src/CMakeLists.txt" ]] ||
    { fail "short: carry .bundle-compat and .bundle-compat-src, run unpack"; return; }
  if [[ ! -f "$build/build.ninja" ]]; then
    cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_COMPILER="$REPO/compat/nvcc-one-arch.sh" > "$WORK/out/compat-configure.log" 2>&1 ||
      { tail -30 "$WORK/out/compat-configure.log"; fail "short: configure"; return; }
  fi
  ninja -C "$build" -j "$(nproc)" vectorAdd matrixMul reduction deviceQuery > "$WORK/out/short-build.log" 2>&1 ||
    { tail -20 "$WORK/out/short-build.log"; fail "short: nvcc build"; return; }
  local out="${OUT:-$WORK/out}"
  python3 "$REPO/bench/short_programs.py" --samples "$src" --remote "$WORK/compat/remote" \
    --local "$build" --rc "$WORK/rc" --out "$out" --reps "${SHORT_REPS:-5}" \
    --gpu "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" || fail "short"
}

step_compat() {
  need_rc compat || return
  [[ -f "$WORK/compat/remote/rows.json" ]] || { fail "compat: no $WORK/compat/remote (carry .bundle-compat, run unpack)"; return; }
  # A client machine has the toolkit overlay where the samples were built:
  # libNVVM programs open libdevice by that path.
  local overlay
  overlay="$(cat "$WORK/compat/remote/overlay/path" 2>/dev/null || true)"
  if [[ -n "$overlay" && ! -e "$overlay/nvvm/libdevice" ]]; then
    mkdir -p "$overlay/nvvm" && ln -sfn "$WORK/compat/remote/overlay/nvvm/libdevice" "$overlay/nvvm/libdevice"
  fi
  python3 "$REPO/compat/run_samples.py" --samples "$WORK/compat/cuda-samples" \
    --remote "$WORK/compat/remote" --local "$WORK/compat/local" --rc "$WORK/rc" \
    --out "${OUT:-$WORK/out}/compat-run.json" --jobs "${COMPAT_JOBS:-4}" --only "${COMPAT_ONLY:-}" ||
    fail "compat"
}

# --- the yardstick suites (.bundle-yardsticks): docs/yardsticks.md
yardstick_suites() {
  local d
  for d in "$WORK"/yardsticks/*/src; do [[ -d "$d" ]] && basename "$(dirname "$d")"; done
}

# All suites at once, each a share of the cores: $1 the step's name, then
# yardstick.py's subcommand and the options that differ per suite ({} is the
# suite's name). Each suite's definition is $YARDSTICK_SUITES/suite_<suite>.py.
each_suite() {
  local step="$1" suites s i pids=() started=() args
  shift
  mapfile -t suites < <(yardstick_suites)
  [[ ${#suites[@]} -gt 0 ]] ||
    { fail "$step: nothing under $WORK/yardsticks (carry .bundle-yardsticks, run unpack)"; return; }
  for s in "${suites[@]}"; do
    [[ -f "$YARDSTICK_SUITES/suite_$s.py" ]] ||
      { fail "$step: $s: no definition $YARDSTICK_SUITES/suite_$s.py (carry .bundle-yardsticks)"; continue; }
    args=("${@//\{\}/$s}")
    # Not the llama.cpp steps' manifests or server: each run gets its own.
    env -u RC_MANIFEST -u RC_SERVER timeout "$TMO" python3 "$REPO/compat/yardstick.py" \
      "${args[@]}" --suite "$YARDSTICK_SUITES/suite_$s.py" --src "$WORK/yardsticks/$s/src" \
      > "$WORK/out/$step-$s.log" 2>&1 &
    pids+=($!)
    started+=("$s")
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || fail "$step: ${started[$i]} (exit $?, $WORK/out/$step-${started[$i]}.log)"
    tail -3 "$WORK/out/$step-${started[$i]}.log"
  done
}

step_yardsticks_local() {
  local suites
  suites=$(yardstick_suites | wc -l)
  each_suite yardsticks-local local-build --work "$WORK/yardsticks" \
    --jobs $(( $(nproc) / (suites > 0 ? suites : 1) ))
}

step_yardsticks() {
  need_rc yardsticks || return
  local out="${OUT:-$WORK/out}"
  each_suite yardsticks run --remote "$WORK/yardsticks/{}/remote" \
    --local "$WORK/yardsticks/{}/local" --rc "$WORK/rc" --work "$WORK/yardsticks" \
    --out "$out/yardstick-{}-run.json" --jobs "${YARDSTICK_JOBS:-4}" \
    --deadline "${YARDSTICK_DEADLINE:-300}" --only "${YARDSTICK_ONLY:-}"
  # The nvcc builds' logs, and the runs' own folders of what failed, for a
  # look at what the run JSON's tails do not say.
  (cd "$WORK/yardsticks" && tar czf "$out/yardstick-logs.tar.gz" */local/logs */local/built.json \
    "$WORK/out"/yardsticks-*.log 2>/dev/null) || true
}

step_mps() {
  need_rc mps || return
  local log="${OUT:-$WORK/out}/rc_server_mps_tests.log"
  RC_TEST_FATBIN="$RC_BIN/gpu_kernels.fatbin" RC_SERVER_BIN="$RC_BIN/rc-server" \
    rc_env "$RC_BIN/rc_server_mps_tests" > "$log" 2>&1 ||
    { fail "mps: rc_server_mps_tests ($log)"; grep -B5 -A25 'Failure' "$log" | head -80; }
  grep -E '^MEASURED|^\[  (PASSED|FAILED|SKIPPED)  \]' "$log"
  # Not rc_env: the local clients must not find rc's libraries first.
  env -u RC_MANIFEST -u RC_SERVER ${SHARING_CONFIGS:+CONFIGS="$SHARING_CONFIGS"} \
    bash "$REPO/bench/gpu-sharing.sh" ||
    fail "mps: bench/gpu-sharing.sh"
}

for s in "${STEPS[@]}"; do
  say "$s"
  case "$s" in
    unpack|samples|gtests|copies|transport|ref|models|ops|generate|server|bench|multigpu|kernels|compat|short|mps) "step_$s" ;;
    compat-local) step_compat_local ;;
    yardsticks) step_yardsticks ;;
    yardsticks-local) step_yardsticks_local ;;
    *) echo "device-run: unknown step $s" >&2; exit 2 ;;
  esac
done
echo "device-run: $([[ $status -eq 0 ]] && echo OK || echo FAILED) (logs in $WORK/out)"
exit $status
