#!/usr/bin/env bash
# A decode token, local vs remote, by one clock (on the GPU machine, with
# .bundle and .bundle-llama carried as for bench/run.sh; builds the nvcc reference if
# it is not there yet):
#
#   bash bench/token-clock.sh
#
# bench/run.sh compares llama-bench's tg128 t/s, which mixes two costs: the
# steady-state token and what each repetition adds (its first token, graph
# capture, stray slow tokens). This script preloads bench/token_clock.c
# into llama-bench for every configuration alike (local nvcc build, remote
# build over shm and tcp), so each decode token's end is stamped at the
# same place in llama.cpp, and bench/token_clock_report.py splits both
# costs for local and remote: the median token (robust to this machine's
# slow-token spikes) and the time each repetition adds above n medians.
# Runs alternate configurations; each is its own llama-bench process.
#
#   MODELS="1b:q4_0 7b:q4_0"  N=128  INNER=3  RUNS=3  CONFIGS="local shm tcp"
#   VARIANTS="default"  (name[=VAR=value,...]: environments for rc-server and
#                        the client, remote configurations only; an entry
#                        server:VAR=value goes to rc-server alone, e.g.
#                        srvyield0=server:RC_DEV_TRANSPORT_YIELD_US=0)
#   VARIANTS_shm, VARIANTS_tcp: the variants of one configuration alone
#                       (default: VARIANTS), e.g. a server setting that
#                       only matters over tcp
#   BENCH_ARGS=""       more llama-bench arguments, every configuration alike
#                       (e.g. "-t 8": fewer CPU threads than cores)
#   SERVER_PREFIX=""    a command rc-server runs under (e.g. "taskset -c 15")
#   NAME=""             results under token-clock-NAME (several runs of this
#                       script in one device call keep their results apart)
# Results: $WORK/token-clock[-NAME]/ (stamps, llama-bench jsonl, report.json),
# packed into $OUT (or bench/out)/token-clock[-NAME].tar.gz; the report is
# printed and kept as $OUT/token-clock/<date>-<gpu>[-NAME].json, the file
# bench/results/token-clock/ keeps.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
MODELS="${MODELS:-1b:q4_0 7b:q4_0}"
N="${N:-128}"
INNER="${INNER:-3}"
RUNS="${RUNS:-3}"
CONFIGS="${CONFIGS:-local shm tcp}"
VARIANTS="${VARIANTS:-default}"
BENCH_ARGS="${BENCH_ARGS:-}"
RESULTS_NAME="token-clock${NAME:+-$NAME}"
RESULTS="$WORK/$RESULTS_NAME"
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
export WORK MODELS

source "$REPO/bench/llama-setup.sh"
llama_bench_setup token-clock "$RESULTS"

# $1 url, $2 log, $3 comma-separated VAR=value list.
start_server() {
  env ${3//,/ } LD_LIBRARY_PATH="$WORK/rc/lib" ${SERVER_PREFIX:-} "$RC_BIN/rc-server" --listen "$1" "${MANIFESTS[@]}" > "$2" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 300); do grep -q "listening on" "$2" && return 0; sleep 0.1; done
  echo "token-clock: rc-server did not start:"; tail -5 "$2"; return 1
}

# $1 tag, $2 model, then the environment (VAR=value words), then the binary.
run_bench() {
  local tag="$1" model="$2"; shift 2
  env TOKEN_CLOCK_OUT="$RESULTS/stamps-$tag.txt" LD_PRELOAD="$SHIM" "$@" \
    -m "$model" -ngl 99 -p 0 -n "$N" -r "$INNER" -o jsonl $BENCH_ARGS \
    > "$RESULTS/bench-$tag.jsonl" 2> "$RESULTS/bench-$tag.err" ||
    { echo "token-clock: $tag failed:"; tail -5 "$RESULTS/bench-$tag.err"; }
}

for run in $(seq "$RUNS"); do
  for m in $MODELS; do
    model="$WORK/models/${m%%:*}-${m##*:}.gguf"
    for cfg in $CONFIGS; do
      if [[ $cfg == local ]]; then
        run_bench "${m%%:*}-local-run$run" "$model" "$REF_BIN/llama-bench"
        continue
      fi
      variants_of="VARIANTS_$cfg"
      for v in ${!variants_of:-$VARIANTS}; do
        name="${v%%=*}"; envs=""; [[ "$v" == *=* ]] && envs="${v#*=}"
        both=""; server=""
        for e in ${envs//,/ }; do
          if [[ $e == server:* ]]; then server+="${e#server:},"; else both+="$e,"; fi
        done
        tag="${m%%:*}-$cfg-$name-run$run"
        url="shm://rc-clock-$$"; [[ $cfg == tcp ]] && url="tcp://127.0.0.1:$(( 20000 + RANDOM % 10000 ))"
        start_server "$url" "$RESULTS/server-$tag.log" "$both$server" || continue
        run_bench "$tag" "$model" ${both//,/ } LD_LIBRARY_PATH="$LL_BIN:$WORK/rc/lib" RC_SERVER="$url" \
          "$LL_BIN/llama-bench"
        stop_server
      done
    done
  done
done
OUT_DIR="${OUT:-$REPO/bench/out}"; mkdir -p "$OUT_DIR"
python3 "$REPO/bench/token_clock_report.py" --dir "$RESULTS" --n "$N" --inner "$INNER" \
  --out "$OUT_DIR" --config "$NAME" \
  --gpu "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
tar -C "$WORK" -czf "$OUT_DIR/$RESULTS_NAME.tar.gz" "$RESULTS_NAME"
