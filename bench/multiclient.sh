#!/usr/bin/env bash
# Many llama.cpp clients on one GPU at once: aggregate decode tokens per
# second, local (N processes on the GPU, time-sliced, and under an MPS
# daemon of the bench's own: bench/mps-local.sh) vs remote through one
# rc-server, without and with --isolation process (docs/server-isolation.md, "Fault
# containment"), over shm and tcp, with its default --gpu-sharing (MPS
# where the machine has it: docs/design/gpu-sharing.md) or a named one. On the GPU machine, .bundle and
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
# Server mode: one llama-server with -np N slots, N concurrent streamed
# requests of $SERVER_T tokens (bench/server_clients.py stamps each token
# as it arrives); local is the nvcc-built llama-server. The window and the
# aggregate are computed alike; ttft_ms is from the requests' sending.
#
#   MODES="bench server"
#   MODELS="1b:q4_0 7b:q4_0"   CLIENTS="1 2 4 8 16"   CLIENTS_7b="1 8"
#   (CLIENTS_<shape>: that model's counts, else CLIENTS; 16 7B clients
#   would need ~64 GiB)   SERVER_CLIENTS="1 8"
#   T=1024 tokens per client, SERVER_T=512 per request;
#   CONFIGS="local local-mps none-shm process-shm process-shm-timeslice
#   none-tcp process-tcp": local-mps is local under MPS (skipped, saying
#   so, without nvidia-cuda-mps-control); ISOLATION-TRANSPORT[-SHARING]
#   is rc-server --isolation ISOLATION --gpu-sharing SHARING (default
#   auto)   REPS=1: runs of each (the report: their median, min and max)
#   MERGE=FILE: an earlier results .json whose rows this run does not
#   measure are kept (one mode a device call)
# Results in $OUT (or bench/out): multiclient-raw.jsonl, then
# bench/multiclient_report.py's multiclient/<date>-<gpu>.{json,md,png},
# with each row's ratio to local and to local+MPS.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
MODELS="${MODELS:-1b:q4_0 7b:q4_0}"
CLIENTS="${CLIENTS:-1 2 4 8 16}"
CLIENTS_7b="${CLIENTS_7b:-1 8}"
T="${T:-1024}"
MODES="${MODES:-bench server}"
SERVER_CLIENTS="${SERVER_CLIENTS:-1 8}"
SERVER_T="${SERVER_T:-512}"
CONFIGS="${CONFIGS:-local local-mps none-shm process-shm process-shm-timeslice none-tcp process-tcp}"
REPS="${REPS:-1}"
RESULTS="${OUT:-$REPO/bench/out}"
RUNS="$WORK/multiclient"
rm -rf "$RUNS"; mkdir -p "$RUNS/server" "$RESULTS"
RAW="$RESULTS/multiclient-raw.jsonl"
: > "$RAW"
export WORK MODELS

source "$REPO/bench/llama-setup.sh"
llama_bench_setup multiclient "$RUNS"
source "$REPO/bench/mps-local.sh"
trap 'stop_server; mps_local_stop' EXIT
mps_local_check_system

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

# One llama-server with $2 slots answering $2 streamed requests at once.
# $1 run tag, $2 clients, $3 model, then the environment and the binary.
run_server_clients() {
  local tag="$1" n="$2" model="$3" port=$(( 30000 + RANDOM % 20000 )) pid t0 failed; shift 3
  "$@" -m "$model" -ngl 99 -np "$n" -c $(( n * (SERVER_T + 128) )) --host 127.0.0.1 \
    --port "$port" --no-warmup > "$RUNS/server/$tag.log" 2>&1 &
  pid=$!
  read -r t0 failed < <(python3 "$REPO/bench/server_clients.py" --url "http://127.0.0.1:$port" \
    --clients "$n" --tokens "$SERVER_T" --run "$RUNS/server" --tag "$tag" 2> "$RUNS/server/$tag.err")
  [[ $failed == 0 ]] || tail -3 "$RUNS/server/$tag.err"
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  python3 "$REPO/bench/multiclient_report.py" --run "$RUNS/server" --tag "$tag" \
    --clients "$n" --t0 "$t0" --failed "$failed" --mode server >> "$RAW"
  tail -1 "$RAW"
}

for mode in $MODES; do
  for m in $MODELS; do
    shape="${m%%:*}"; model="$WORK/models/$shape-${m##*:}.gguf"
    counts_of="CLIENTS_$shape"; counts="${!counts_of:-$CLIENTS}"
    [[ $mode == server ]] && counts="$SERVER_CLIENTS"
    run=run_clients binary=llama-bench
    [[ $mode == server ]] && run=run_server_clients binary=llama-server
    for n in $counts; do
      for cfg in $CONFIGS; do
       for ((rep = 0; rep < REPS; rep++)); do
        tag="$shape-$cfg-r$rep-n$n"
        if [[ $cfg == local ]]; then
          $run "$tag" "$n" "$model" "$REF_BIN/$binary"
          continue
        fi
        if [[ $cfg == local-mps ]]; then
          mps_local_start || continue
          # shellcheck disable=SC2046
          $run "$tag" "$n" "$model" env $(mps_local_env) "$REF_BIN/$binary"
          mps_local_stop
          continue
        fi
        IFS=- read -r isolation transport sharing <<< "$cfg"
        # llama-server is one client of rc-server, whatever its slots.
        workers="$n"; [[ $mode == server ]] && workers=1
        url="shm://rc-multi-$$"; [[ $transport == tcp ]] && url="tcp://127.0.0.1:$(( 20000 + RANDOM % 10000 ))"
        opts=(--isolation "$isolation" --gpu-sharing "${sharing:-auto}")
        [[ $isolation == process ]] && opts+=(--warm-workers "$workers" --max-workers "$(( workers > 32 ? workers : 32 ))")
        start_server "$url" "$RUNS/server-$mode-$tag.log" "${opts[@]}" || continue
        # Every warm worker ready (each makes a context) before the clients come.
        [[ $isolation == process ]] && sleep $(( 2 + workers / 4 ))
        $run "$tag" "$n" "$model" env LD_LIBRARY_PATH="$LL_BIN:$WORK/rc/lib" RC_SERVER="$url" \
          "$LL_BIN/$binary"
        grep -E "sessions share the GPU|MPS not available" "$RUNS/server-$mode-$tag.log" | head -1
        stop_server
       done
      done
    done
  done
done
python3 "$REPO/bench/multiclient_report.py" --raw "$RAW" --out "$RESULTS" \
  --gpu "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" --tokens "$T" \
  --server-tokens "$SERVER_T" ${MERGE:+--merge "$MERGE"}
