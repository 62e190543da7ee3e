#!/usr/bin/env bash
# Where a remote decode token's time goes, on the GPU machine (carry
# .bundle, .bundle-llama and .bundle-llama-src, as for bench/run.sh; needs no nvcc
# reference build):
#
#   bash bench/profile-decode.sh
#
# For each model, transport and variant (an environment for both rc-server
# and the client), a fresh rc-server with --metrics runs llama-bench -p 0
# -n N -r REPS with RC_STATS; bench/profile_report.py splits the steady-state
# decode token into client work, server replay (GPU included), reply
# building and sending, and the link, from the client's list of reply waits
# and the server's recent round-trip medians. Files: $OUT/profile.tar.gz.
#
#   MODELS="1b:q4_0 7b:q4_0"  N=128  REPS=3  RC_TRANSPORTS="shm tcp"
#   VARIANTS="default yield1000=RC_DEV_TRANSPORT_YIELD_US=1000"
#            (name[=VAR=value,VAR=value], one word each)
#   P=512    a prompt step instead: llama-bench -p P -n 0, -r 1 then
#            -r 1+REPS on one rc-server; bench/profile_prefill.py takes the
#            difference of the server's counters (exactly REPS steps)
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
MODELS="${MODELS:-1b:q4_0 7b:q4_0}"
N="${N:-128}"
REPS="${REPS:-3}"
P="${P:-0}"
TRANSPORTS="${RC_TRANSPORTS:-shm tcp}"
VARIANTS="${VARIANTS:-default}"
RESULTS="$WORK/profile"
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
export WORK MODELS

steps=()
[[ -x "$WORK/llama/bin/llama-bench" ]] || steps+=(unpack)
steps+=(models)
bash "$REPO/scripts/device-run.sh" "${steps[@]}" > "$RESULTS/setup.log" 2>&1 ||
  { tail -20 "$RESULTS/setup.log"; echo "profile: setup failed"; exit 1; }

RC_BIN="$WORK/rc/bin"; LL_BIN="$WORK/llama/bin"
MANIFESTS=(); while read -r m; do MANIFESTS+=(--manifest "$m"); done < <(find "$LL_BIN" -maxdepth 1 -type f -name '*.rcm')
SERVER_PID=""
stop_server() { [[ -n "$SERVER_PID" ]] && kill -INT "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""; }
trap stop_server EXIT

# $1 url, $2 metrics file, $3 comma-separated VAR=value list.
start_server() {
  local log="$2.log"
  env ${3//,/ } LD_LIBRARY_PATH="$WORK/rc/lib" "$RC_BIN/rc-server" --listen "$1" "${MANIFESTS[@]}" \
    --metrics "$2" > "$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 300); do grep -q "listening on" "$log" && return 0; sleep 0.1; done
  echo "profile: rc-server did not start:"; tail -5 "$log"; return 1
}

for m in $MODELS; do
  model="$WORK/models/${m%%:*}-${m##*:}.gguf"
  for t in $TRANSPORTS; do
    for v in $VARIANTS; do
      name="${v%%=*}"; envs=""; [[ "$v" == *=* ]] && envs="${v#*=}"
      tag="${m%%:*}-$t-$name"
      url="shm://rc-prof-$$"; [[ $t == tcp ]] && url="tcp://127.0.0.1:$(( 20000 + RANDOM % 10000 ))"
      start_server "$url" "$RESULTS/metrics-$tag.json" "$envs" || continue
      if [[ "$P" -gt 0 ]]; then
        for run in short:1 long:$((1 + REPS)); do
          env ${envs//,/ } LD_LIBRARY_PATH="$LL_BIN:$WORK/rc/lib" RC_SERVER="$url" \
            "$LL_BIN/llama-bench" -m "$model" -ngl 99 -p "$P" -n 0 -r "${run#*:}" -o jsonl \
            > "$RESULTS/bench-$tag-${run%%:*}.jsonl" 2> "$RESULTS/bench-$tag-${run%%:*}.err" &
          echo $! >> "$RESULTS/prefill-$tag.pids"
          wait $! || { echo "profile: $tag ${run%%:*} failed:"; tail -5 "$RESULTS/bench-$tag-${run%%:*}.err"; }
        done
      else
        env ${envs//,/ } LD_LIBRARY_PATH="$LL_BIN:$WORK/rc/lib" RC_SERVER="$url" RC_STATS="$RESULTS/stats-$tag.json" \
          "$LL_BIN/llama-bench" -m "$model" -ngl 99 -p 0 -n "$N" -r "$REPS" -o jsonl \
          > "$RESULTS/bench-$tag.jsonl" 2> "$RESULTS/bench-$tag.err" ||
          { echo "profile: $tag failed:"; tail -5 "$RESULTS/bench-$tag.err"; }
      fi
      stop_server
    done
  done
done
if [[ "$P" -gt 0 ]]; then
  python3 "$REPO/bench/profile_prefill.py" --dir "$RESULTS"
else
  python3 "$REPO/bench/profile_report.py" --dir "$RESULTS"
fi
OUT_DIR="${OUT:-$REPO/bench/out}"; mkdir -p "$OUT_DIR"
tar -C "$WORK" -czf "$OUT_DIR/profile.tar.gz" profile
