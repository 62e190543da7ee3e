# Sourced by the bench scripts that run llama-bench with bench/token_clock.c
# preloaded (token-clock.sh, multiclient.sh) on the GPU machine: what they
# set up alike. Expects REPO, WORK, MODELS and CONFIGS set.
#
#   llama_bench_setup NAME DIR   unpacks what is missing, builds the nvcc
#                                reference when CONFIGS has local, makes the
#                                models (scripts/device-run.sh; its log in
#                                DIR/setup.log) and the shim ($CC, cc)
#
# and then sets RC_BIN, LL_BIN, REF_BIN, SHIM, MANIFESTS (--manifest ARGS of
# llama.cpp's manifests), and stop_server (kills $SERVER_PID, also at exit).

llama_bench_setup() {
  local name="$1" dir="$2" steps=()
  [[ -x "$WORK/llama/bin/llama-bench" ]] || steps+=(unpack)
  [[ " $CONFIGS " != *" local"* || -x "$WORK/ref/bin/llama-bench" ]] || steps+=(ref)
  steps+=(models)
  bash "$REPO/scripts/device-run.sh" "${steps[@]}" > "$dir/setup.log" 2>&1 ||
    { tail -20 "$dir/setup.log"; echo "$name: setup failed"; exit 1; }
  SHIM="$WORK/token_clock.so"
  "${CC:-cc}" -O2 -shared -fPIC -o "$SHIM" "$REPO/bench/token_clock.c" -ldl ||
    { echo "$name: cannot build the shim"; exit 1; }
  RC_BIN="$WORK/rc/bin"; LL_BIN="$WORK/llama/bin"; REF_BIN="$WORK/ref/bin"
  MANIFESTS=()
  while read -r m; do MANIFESTS+=(--manifest "$m"); done < <(find "$LL_BIN" -maxdepth 1 -type f -name '*.rcm')
  SERVER_PID=""
  trap stop_server EXIT
}

stop_server() {
  [[ -n "$SERVER_PID" ]] && kill -INT "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=""
}
