#!/usr/bin/env bash
# Many mixed llama.cpp clients for a long time against one rc-server: no
# failed run, and memory that stays flat (by default 16 clients, 7B and 1B
# shapes mixed, 10 minutes). On the GPU machine, with
# .bundle and .bundle-llama carried as for bench/multiclient.sh.
#
#   bash bench/soak.sh start   starts the soak detached and returns (a
#                              device call lasts at most 10 minutes)
#   bash bench/soak.sh wait    waits for it (up to WAIT_S, 540), then
#                              writes the report; call again if not done
#   bash bench/soak.sh run     the soak itself, in the foreground
#
# Client i runs llama-bench (-p 64 -n 128 -r 1) again and again on the 1B
# shape (even i) or the 7B shape (odd i) until SOAK_S have passed: every
# run is a new process and session (model load, decode, goodbye). Every
# 10 s a sample: rc-server's resident memory (with --isolation process,
# the supervisor's and all its workers' together) and the GPU's memory in
# use. After the last client, a last sample with no session open.
#
#   SOAK_S=600  CLIENTS=16  ISOLATION=none|process  TRANSPORT=shm|tcp
# Results: $OUT (or bench/out)/soak-*.jsonl, then bench/soak_report.py's
# soak/<date>-<gpu>-isolation-<isolation>.{json,md}.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
SOAK_S="${SOAK_S:-600}"
CLIENTS="${CLIENTS:-16}"
ISOLATION="${ISOLATION:-none}"
TRANSPORT="${TRANSPORT:-shm}"
WAIT_S="${WAIT_S:-540}"
RUNS="$WORK/soak"
RESULTS="${OUT:-$REPO/bench/out}"

case "${1:-}" in
start)
  rm -rf "$RUNS"; mkdir -p "$RUNS"
  setsid nohup bash "$0" run > "$RUNS/soak.log" 2>&1 < /dev/null &
  echo "soak: started (pid $!), $CLIENTS clients for $SOAK_S s; log $RUNS/soak.log"
  exit 0 ;;
wait)
  for _ in $(seq "$WAIT_S"); do [[ -e "$RUNS/done" ]] && break; sleep 1; done
  tail -5 "$RUNS/soak.log"
  [[ -e "$RUNS/done" ]] || { echo "soak: still running"; exit 0; }
  mkdir -p "$RESULTS"
  cp "$RUNS"/*.jsonl "$RUNS/server.log" "$RESULTS/" 2>/dev/null
  python3 "$REPO/bench/soak_report.py" --runs "$RUNS" --out "$RESULTS" \
    --gpu "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" --isolation "$ISOLATION"
  exit $? ;;
run) ;;
*) echo "usage: bench/soak.sh start|wait|run"; exit 2 ;;
esac

mkdir -p "$RUNS"
export WORK MODELS="1b:q4_0 7b:q4_0" CONFIGS="none-$TRANSPORT"
source "$REPO/bench/llama-setup.sh"
llama_bench_setup soak "$RUNS"

url="shm://rc-soak-$$"
[[ $TRANSPORT == tcp ]] && url="tcp://127.0.0.1:$(( 20000 + RANDOM % 10000 ))"
opts=(--isolation "$ISOLATION")
[[ $ISOLATION == process ]] && opts+=(--warm-workers 4 --max-workers 32)
LD_LIBRARY_PATH="$WORK/rc/lib" "$RC_BIN/rc-server" --listen "$url" "${MANIFESTS[@]}" "${opts[@]}" \
  > "$RUNS/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 600); do grep -q "listening on" "$RUNS/server.log" && break; sleep 0.1; done
sleep 3 # warm workers ready

# $1 what: the sample's label.
sample() {
  local pids rss gpu
  pids="$(echo "$SERVER_PID" $(pgrep -P "$SERVER_PID") | tr ' ' ',')"
  rss="$(ps -o rss= -p "$pids" | awk '{s += $1} END {print s + 0}')"
  gpu="$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1)"
  printf '{"what": "%s", "t": %s, "server_rss_kib": %s, "gpu_used_mib": %s, "processes": %s}\n' \
    "$1" "$(date +%s)" "$rss" "$gpu" "$(tr ',' '\n' <<< "$pids" | wc -l)" >> "$RUNS/soak-samples.jsonl"
}

client() { # $1 index, $2 model file
  local i="$1" model="$2" status
  while (( $(date +%s) < END )); do
    env LD_LIBRARY_PATH="$LL_BIN:$WORK/rc/lib" RC_SERVER="$url" "$LL_BIN/llama-bench" \
      -m "$model" -ngl 99 -p 64 -n 128 -r 1 -o jsonl >> "$RUNS/c$i.out" 2>> "$RUNS/c$i.err"
    status=$?
    printf '{"client": %d, "model": "%s", "end": %s, "status": %d}\n' \
      "$i" "$(basename "$model" .gguf)" "$(date +%s)" "$status" >> "$RUNS/soak-runs.jsonl"
  done
}

sample idle-start
END=$(( $(date +%s) + SOAK_S ))
pids=()
for ((i = 0; i < CLIENTS; i++)); do
  shape=1b; (( i % 2 )) && shape=7b
  client "$i" "$WORK/models/$shape-q4_0.gguf" &
  pids+=($!)
done
while (( $(date +%s) < END )); do sleep 10; sample busy; done
wait "${pids[@]}"
sleep 2
sample idle-end
stop_server
echo "soak: done, $(wc -l < "$RUNS/soak-runs.jsonl") runs"
touch "$RUNS/done"
