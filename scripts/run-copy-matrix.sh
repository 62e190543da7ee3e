#!/usr/bin/env bash
# The copy-size matrix: the copy_sizes sample (test/samples/project: every
# size class from 0 B past 128 MiB, unaligned offsets, pageable and pinned,
# H2D, D2H, D2D and 2D, each byte and the bytes beside it checked) through
# rc-server over every transport, once per client setting:
#   tcp: default (RMA read-backs, upload ring), RC_DEV_RMA=0 (all in
#        messages), RC_DEV_RMA_UPLOAD_MIN=0 (no ring, RMA read-backs)
#   shm: the same, and RC_DEV_SHARED_HOST=0 (pinned memory not shared)
# The runs named in HUGE (TRANSPORT:SETTING; default "tcp:default
# shm:default") also copy 4 GiB + 3 bytes. Prints one PASS/FAIL line per
# run and exits 0 only if all passed.
#
#   run-copy-matrix.sh --server BIN --program BIN [--server-args ARGS]
#                      [--transports "tcp shm"] [--huge "tcp:default"]
# ARGS: "--test-device" in CI; nothing on a GPU machine.
set -uo pipefail
SERVER_BIN=""; PROGRAM=""; SERVER_ARGS=""; TRANSPORTS="tcp shm"
HUGE="tcp:default shm:default"
while [ $# -gt 0 ]; do
  case "$1" in
    --server) SERVER_BIN="$2"; shift 2 ;;
    --program) PROGRAM="$2"; shift 2 ;;
    --server-args) SERVER_ARGS="$2"; shift 2 ;;
    --transports) TRANSPORTS="$2"; shift 2 ;;
    --huge) HUGE="$2"; shift 2 ;;
    *) echo "run-copy-matrix.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$SERVER_BIN" ] || { echo "run-copy-matrix.sh: rc-server '$SERVER_BIN' not executable" >&2; exit 2; }
[ -x "$PROGRAM" ] && [ -f "$PROGRAM.rcm" ] ||
  { echo "run-copy-matrix.sh: '$PROGRAM' is not a program with its .rcm beside it" >&2; exit 2; }

passed=0; failed=0
run_one() { # $1 transport, $2 url, $3 setting ("default" or VAR=VALUE)
  local env=() args=() name="[$1 $3]"
  [ "$3" = default ] || env=("$3")
  case " $HUGE " in *" $1:$3 "*) args=(--huge); name="[$1 $3, 4 GiB]" ;; esac
  local start out rc ms
  start=$(date +%s%N)
  out="$(env RC_SERVER="$2" "${env[@]}" timeout 600 "$PROGRAM" "${args[@]}" 2>&1)"; rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1)); echo "PASS  $name $(echo "$out" | tail -1) (${ms} ms)"
  else
    failed=$((failed + 1)); echo "FAIL  $name (exit $rc, ${ms} ms)"
    echo "$out" | tail -20 | sed 's/^/      | /'
  fi
}

for t in $TRANSPORTS; do
  case "$t" in
    tcp) port=$(( 20000 + (RANDOM % 20000) )); url="tcp://127.0.0.1:$port"
         settings="default RC_DEV_RMA=0 RC_DEV_RMA_UPLOAD_MIN=0" ;;
    shm) url="shm://rc-copy-matrix-$$"
         settings="default RC_DEV_RMA=0 RC_DEV_RMA_UPLOAD_MIN=0 RC_DEV_SHARED_HOST=0" ;;
    *) echo "run-copy-matrix.sh: unknown transport $t" >&2; exit 2 ;;
  esac
  log="$(mktemp)"
  # shellcheck disable=SC2086
  "$SERVER_BIN" --listen "$url" --manifest "$PROGRAM.rcm" $SERVER_ARGS >"$log" 2>&1 &
  spid=$!
  for _ in $(seq 200); do grep -q "listening on" "$log" && break; kill -0 $spid 2>/dev/null || break; sleep 0.1; done
  if ! grep -q "listening on" "$log"; then
    echo "FAIL  [$t] rc-server did not start:"; sed 's/^/      | /' "$log"
    failed=$((failed + 1)); kill $spid 2>/dev/null; continue
  fi
  for s in $settings; do run_one "$t" "$url" "$s"; done
  kill -INT $spid 2>/dev/null
  if ! wait $spid; then
    failed=$((failed + 1)); echo "FAIL  [$t] rc-server did not exit cleanly:"
    tail -20 "$log" | sed 's/^/      | /'
  fi
  rm -f "$log"
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
