#!/usr/bin/env bash
# Many llama.cpp clients on one GPU at once: aggregate decode tokens per
# second, local (N processes on the GPU) vs remote through one rc-server,
# without and with --isolation process (docs/server.md, "Fault
# containment"), over shm and tcp. On the GPU machine, .bundle and
# .bundle-llama carried as for bench/token-clock.sh (it builds the nvcc
# reference and the models if they are not there yet):
#
#   bash bench/multiclient.sh
#
# Each client is a llama-bench decode run (-p 0 -n $T) with
# bench/token_clock.c preloaded, which stamps every token's end on the
# machine's monotonic clock. The aggregate is measured over the window in
# which every client is decoding (from the last client's first token to
# the first client's last one): all clients' tokens in it over its length,
# so staggered model loads do not count. ttft_ms: the median client's time
# from the launch of all clients to its first decoded token (process start
# and model load included).
#
#   MODELS="1b:q4_0 7b:q4_0"   CLIENTS="1 4 8 16"   CLIENTS_7b="1 8"
#   (CLIENTS_<shape>: that model's counts, else CLIENTS; 16 7B clients
#   would need ~64 GiB)
#   T=1024 tokens per client; CONFIGS="local none-shm process-shm none-tcp
#   process-tcp"
# Results in $OUT (or bench/out): multiclient-raw.jsonl, then
# bench/multiclient_report.py's <date>-<gpu>-multiclient.{json,md,png}.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
MODELS="${MODELS:-1b:q4_0 7b:q4_0}"
CLIENTS="${CLIENTS:-1 4 8 16}"
CLIENTS_7b="${CLIENTS_7b:-1 8}"
T="${T:-1024}"
CONFIGS="${CONFIGS:-local none-shm process-shm none-tcp process-tcp}"
RESULTS="${OUT:-$REPO/bench/out}"
RUNS="$WORK/multiclient"
rm -rf "$RUNS"; mkdir -p "$RUNS" "$RESULTS"
RAW="$RESULTS/multiclient-raw.jsonl"
: > "$RAW"
export WORK MODELS

source "$REPO/bench/llama-setup.sh"
llama_bench_setup multiclient "$RUNS"

# $1 url, $2 log, then rc-server's options.
start_server() {
  local url="$1" log="$2"; shift 2
  LD_LIBRARY_PATH="$WORK/rc/lib" "$RC_BIN/rc-server" --listen "$url" "${MANIFESTS[@]}" "$@" > "$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 600); do grep -q "listening on" "$log" && return 0; sleep 0.1; done
  echo "multiclient: rc-server did not start:"; tail -5 "$log"; return 1
}

# $1 run tag, $2 clients, $3 model, then the environment and the binary.
run_clients() {
  local tag="$1" n="$2" model="$3" i pids=() t0; shift 3
  t0="$(python3 -c 'import time; print(time.monotonic_ns())')"
  for ((i = 0; i < n; i++)); do
    env TOKEN_CLOCK_OUT="$RUNS/$tag-c$i.stamps" LD_PRELOAD="$SHIM" "$@" \
      -m "$model" -ngl 99 -p 0 -n "$T" -r 1 -o jsonl \
      > "$RUNS/$tag-c$i.jsonl" 2> "$RUNS/$tag-c$i.err" &
    pids+=($!)
  done
  local failed=0
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { failed=$((failed + 1)); tail -3 "$RUNS/$tag-c$i.err"; }
  done
  python3 "$REPO/bench/multiclient_report.py" --run "$RUNS" --tag "$tag" \
    --clients "$n" --t0 "$t0" --failed "$failed" >> "$RAW"
  tail -1 "$RAW"
}

for m in $MODELS; do
  shape="${m%%:*}"; model="$WORK/models/$shape-${m##*:}.gguf"
  counts_of="CLIENTS_$shape"
  for n in ${!counts_of:-$CLIENTS}; do
    for cfg in $CONFIGS; do
      tag="$shape-$cfg-n$n"
      if [[ $cfg == local ]]; then
        run_clients "$tag" "$n" "$model" "$REF_BIN/llama-bench"
        continue
      fi
      isolation="${cfg%%-*}" transport="${cfg##*-}"
      url="shm://rc-multi-$$"; [[ $transport == tcp ]] && url="tcp://127.0.0.1:$(( 20000 + RANDOM % 10000 ))"
      opts=(--isolation "$isolation")
      [[ $isolation == process ]] && opts+=(--warm-workers "$n" --max-workers "$(( n > 32 ? n : 32 ))")
      start_server "$url" "$RUNS/server-$tag.log" "${opts[@]}" || continue
      # Every warm worker ready (each makes a context) before the clients come.
      [[ $isolation == process ]] && sleep $(( 2 + n / 4 ))
      run_clients "$tag" "$n" "$model" env LD_LIBRARY_PATH="$LL_BIN:$WORK/rc/lib" RC_SERVER="$url" \
        "$LL_BIN/llama-bench"
      stop_server
    done
  done
done
python3 "$REPO/bench/multiclient_report.py" --raw "$RAW" --out "$RESULTS" \
  --gpu "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" --tokens "$T"
