#!/usr/bin/env bash
# llama.cpp model load time, local vs remote, with rc-server's content cache
# cold (a fresh server) and warm (the next run), over shm, tcp and tcp with
# a 3 and a 12 GB/s link emulated (RC_DEV_EMULATE_GBPS: 25 and 100 GbE), beside
# llama.cpp's own RPC backend with its tensor cache (ggml-rpc-server -c).
# Run on the GPU machine from the repository root after
#   scripts/device-run.sh unpack ref models   (.bundle and .bundle-llama carried;
#                                              ref in a call of its own)
#   bash bench/load.sh
#
# Each run is one llama-completion process generating one token; the
# measure is its model load (completion() below says how it is read). Per
# transport and case, $REPS runs (3):
#   nocache  the client's RC_CACHE=0 (every byte crosses, as before the cache)
#   cold     a server started just before, its cache empty
#   warm     the run after a cold one, same server
#   preloaded  a fresh server warmed by `rc-cache preload` of the model
#            file (an operator's step, over the same link; PRELOAD=0: skip)
# Results in $OUT (the device tool's) or bench/out: load-raw.txt, which
# bench/bulk_report.py --load-raw turns into rows of bulk/<date>-<gpu>.json;
# where the time goes: each remote run's RC_STATS (load-stats-*.json) and
# each server's --metrics (load-metrics-*.json: commands by type).
#   MODEL=7b (a models-step name: $WORK/models/$MODEL-q4_0.gguf)
#   CACHE=8GiB  TRANSPORTS="shm tcp tcp-12gbps tcp-3gbps" (also: tcp-1stream)
#   RPC=1
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
MODEL="${MODEL:-7b}"
REPS="${REPS:-3}"
CACHE="${CACHE:-8GiB}"
TRANSPORTS="${TRANSPORTS:-shm tcp tcp-12gbps tcp-3gbps}"
RPC="${RPC:-1}"
PRELOAD="${PRELOAD:-1}"
RESULTS="${OUT:-$REPO/bench/out}"
mkdir -p "$RESULTS"
RAW="$RESULTS/load-raw.txt"
: > "$RAW"
RC_BIN="$WORK/rc/bin"; LL_BIN="$WORK/llama/bin"; REF_BIN="$WORK/ref/bin"
MODEL_FILE="$WORK/models/$MODEL-q4_0.gguf"
for f in "$MODEL_FILE" "$REF_BIN/llama-completion" "$LL_BIN/llama-completion" "$RC_BIN/rc-server"; do
  [[ -e "$f" ]] || { echo "load.sh: no $f (run scripts/device-run.sh unpack ref models)"; exit 1; }
done
MANIFESTS=(); while read -r m; do MANIFESTS+=(--manifest "$m"); done < <(find "$LL_BIN" -maxdepth 1 -type f -name '*.rcm')
export RC_MANIFEST="$(find "$LL_BIN" -maxdepth 1 -type f -name '*.rcm' | sort | tr '\n' ':')"
SERVER_PID=""
stop() {
  [[ -n "$SERVER_PID" ]] || return 0
  kill -INT "$SERVER_PID" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""
}
trap stop EXIT

# One llama-completion run; prints its model load time in ms (empty: it
# failed): from llama.cpp's "loading model tensors" log line to its
# "constructing llama_context", by the log's own timestamps (M.SS.mmm.uuu):
# the weights' buffers allocated and every tensor uploaded. (Its "load
# time" perf line starts at a reset after loading: a few ms whatever the
# model.)
completion() { # binary-dir, then extra llama-completion arguments
  local bin="$1"; shift
  timeout 300 "$bin/llama-completion" -m "$MODEL_FILE" -p "Hello" -n 1 --temp 0 \
    -ngl 99 -no-cnv --no-warmup -c 512 -v --log-timestamps "$@" \
    2> "$RESULTS/last-load.err" > /dev/null
  awk '
    function ms(t,  p) { split(t, p, "."); return p[1] * 60000 + p[2] * 1000 + p[3] + p[4] / 1000 }
    /loading model tensors/ { a = ms($1); b = 0 }
    /constructing llama_context/ && a && !b { b = ms($1) }
    END { if (a && b) printf "%.1f\n", b - a }' "$RESULTS/last-load.err"
}
record() { # config case rep value
  if [[ -z "$4" ]]; then
    echo "load.sh: $1 $2 rep $3 failed:"; tail -5 "$RESULTS/last-load.err"; return
  fi
  echo "$1 $2 rep $3: load time $4 ms" | tee -a "$RAW"
}

start() { # url [rc-server args]: a fresh server, cache empty
  stop
  local url="$1"; shift
  env LD_LIBRARY_PATH="$WORK/rc/lib" "$RC_BIN/rc-server" --listen "$url" "${MANIFESTS[@]}" \
    "$@" > "$RESULTS/load-server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 600); do
    grep -q "listening on" "$RESULTS/load-server.log" && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "load.sh: rc-server did not start:"; tail -5 "$RESULTS/load-server.log"; return 1
}

# The page cache holds the model for every configuration alike.
cat "$MODEL_FILE" > /dev/null
# Without the nvcc build (the ref step) the remote rows stand alone.
for rep in $(seq "$REPS"); do
  [[ -x "$REF_BIN/llama-completion" ]] || break
  record local "$MODEL" "$rep" "$(completion "$REF_BIN")"
done

for t in $TRANSPORTS; do
  case "$t" in
    shm) url="shm://rc-load-$$"; gbps=0 ;;
    tcp) url="tcp://127.0.0.1:$(( 20000 + RANDOM % 20000 ))"; gbps=0 ;;
    # One TCP stream: the client asks for no lanes (docs/transport.md).
    tcp-1stream) url="tcp://127.0.0.1:$(( 20000 + RANDOM % 20000 ))"; gbps=0 ;;
    tcp-*gbps) url="tcp://127.0.0.1:$(( 20000 + RANDOM % 20000 ))"; gbps="${t#tcp-}"; gbps="${gbps%gbps}" ;;
  esac
  # The remote-clang build's run (RC_CACHE from the caller: 1 unless set).
  remote() { # case rep
    # (called in $(...): the export stays in that subshell)
    if [[ "$t" == tcp-1stream ]]; then export RC_DEV_TCP_LANES=0; fi
    LD_LIBRARY_PATH="$LL_BIN:$WORK/rc/lib" RC_SERVER="$url" RC_DEV_EMULATE_GBPS="$gbps" \
      RC_CACHE="${RC_CACHE:-1}" RC_STATS="$RESULTS/load-stats-$t-$1-$2.json" completion "$LL_BIN"
  }
  start "$url" --cache "$CACHE" --metrics "$RESULTS/load-metrics-$t-nocache.json" || continue
  for rep in $(seq "$REPS"); do
    record "$t" nocache "$rep" "$(RC_CACHE=0 remote nocache "$rep")"
  done
  for rep in $(seq "$REPS"); do
    start "$url" --cache "$CACHE" --metrics "$RESULTS/load-metrics-$t-$rep.json" || break
    record "$t" cold "$rep" "$(remote cold "$rep")"
    record "$t" warm "$rep" "$(remote warm "$rep")"
    [[ "$PRELOAD" == 1 ]] || continue
    start "$url" --cache "$CACHE" --metrics "$RESULTS/load-metrics-$t-preloaded-$rep.json" || break
    env LD_LIBRARY_PATH="$WORK/rc/lib" RC_SERVER="$url" RC_DEV_EMULATE_GBPS="$gbps" \
      "$RC_BIN/rc-cache" preload "$MODEL_FILE" 2>&1 | tee -a "$RESULTS/load-preload.log"
    record "$t" preloaded "$rep" "$(remote preloaded "$rep")"
  done
  grep -m1 "content cache" "$RESULTS/load-server.log" | head -1
  stop
done

# llama.cpp's RPC backend with its file cache of tensors (-c): the client
# sees no GPU of its own and sends hashes of large tensors first. Loopback
# only: it has no link emulation.
if [[ "$RPC" == 1 && -x "$REF_BIN/ggml-rpc-server" ]]; then
  port=$(( 40000 + RANDOM % 10000 ))
  for rep in $(seq "$REPS"); do
    cache_dir="$(mktemp -d /tmp/rc-load-rpc-cache.XXXXXX)"
    LLAMA_CACHE="$cache_dir" "$REF_BIN/ggml-rpc-server" -H 127.0.0.1 -p "$port" -c \
      > "$RESULTS/load-rpc-server.log" 2>&1 &
    SERVER_PID=$!
    sleep 2
    record rpc-cache cold "$rep" "$(CUDA_VISIBLE_DEVICES= completion "$REF_BIN" --rpc "127.0.0.1:$port")"
    record rpc-cache warm "$rep" "$(CUDA_VISIBLE_DEVICES= completion "$REF_BIN" --rpc "127.0.0.1:$port")"
    stop
    rm -rf "$cache_dir"
  done
fi
echo "load.sh: raw lines in $RAW"
