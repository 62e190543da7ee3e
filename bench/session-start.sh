#!/usr/bin/env bash
# Session start, local vs remote, with and without rc-server --isolation
# process (docs/server-isolation.md, "Fault containment"), on the GPU machine from the
# repository root after `scripts/device-run.sh unpack` with .bundle (and,
# for llama.cpp's manifests, .bundle-llama) carried:
#
#   bash bench/session-start.sh
#
# bench/session_start.cu, built here with nvcc (local) and by remote-clang
# (the bundle's $WORK/rc/bench/session_start), prints the time to its first
# runtime call and to its first kernel's result. Each configuration runs it
# $REPS times (default 10), $GAP_S seconds apart (default 2: a worker pool
# is refilled by then; 0 measures clients that come back to back). Where
# $WORK/llama/bin holds llama.cpp's manifests, rc-server loads them too and
# the client names them in its Hello (RC_MANIFEST), as llama.cpp's programs
# do: the reply then carries their 6992 kernels' attributes.
# Each remote run also prints the client's account of where its start went
# (RC_STATS=1: manifests, connect, Hello, redirect, reply), and each
# server's log says, per session, what its Hello cost there (context, kernel
# attributes, upload ring).
# Results in $OUT (the device tool's) or bench/out: session-start-raw.txt,
# then bench/session_start_report.py's session-start/<date>-<gpu>.{json,md}.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${WORK:-$REPO/.device-work}"
REPS="${REPS:-10}"
GAP_S="${GAP_S:-2}"
RESULTS="${OUT:-$REPO/bench/out}"
mkdir -p "$RESULTS"
RAW="$RESULTS/session-start-raw.txt"
: > "$RAW"
export PATH="/usr/local/cuda/bin:$PATH"
LOCAL_BIN=/tmp/rc-session-start
nvcc -O2 -arch=sm_90 "$REPO/bench/session_start.cu" -o "$LOCAL_BIN" || exit 1
REMOTE_BIN="$WORK/rc/bench/session_start"
[[ -x "$REMOTE_BIN" ]] || { echo "session-start.sh: no $REMOTE_BIN (carry .bundle, run unpack)"; exit 1; }
mapfile -t LLAMA_RCMS < <(find "$WORK/llama/bin" -maxdepth 1 -type f -name '*.rcm' 2>/dev/null | sort)
manifest_sets=(own)
[[ ${#LLAMA_RCMS[@]} -gt 0 ]] && manifest_sets+=(llama)

# REPS runs of one configuration, each line prefixed with its name.
run() { # name command...
  local name="$1" i; shift
  for ((i = 0; i < REPS; i++)); do
    "$@" 2>&1 | sed "s/^/$name: /" | tee -a "$RAW"
    sleep "$GAP_S"
  done
}

run "local own" "$LOCAL_BIN"
for set in "${manifest_sets[@]}"; do
  server_manifests=(--manifest "$REMOTE_BIN.rcm")
  client_manifests="$REMOTE_BIN.rcm"
  if [[ $set == llama ]]; then
    for m in "${LLAMA_RCMS[@]}"; do server_manifests+=(--manifest "$m"); done
    client_manifests+=":$(IFS=:; echo "${LLAMA_RCMS[*]}")"
  fi
  for isolation in none process; do
    for transport in shm tcp; do
      case "$transport" in
        shm) url="shm://rc-start-$$" ;;
        tcp) url="tcp://127.0.0.1:$(( 20000 + RANDOM % 20000 ))" ;;
      esac
      log="$RESULTS/session-start-server-$set-$isolation-$transport.log"
      env LD_LIBRARY_PATH="$WORK/rc/lib" "$WORK/rc/bin/rc-server" --listen "$url" \
        "${server_manifests[@]}" --isolation "$isolation" > "$log" 2>&1 &
      server=$!
      for _ in $(seq 600); do
        grep -q "listening on" "$log" && break
        sleep 0.1
      done
      sleep "$GAP_S"
      run "$isolation-$transport $set" env RC_SERVER="$url" RC_MANIFEST="$client_manifests" RC_STATS=1 \
        LD_LIBRARY_PATH="$WORK/rc/lib" "$REMOTE_BIN"
      kill -INT "$server"; wait "$server" 2>/dev/null
    done
  done
done
python3 "$REPO/bench/session_start_report.py" --raw "$RAW" --out "$RESULTS" \
  --gpu "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
  --reps "$REPS" --gap "$GAP_S"
