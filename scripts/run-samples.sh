#!/usr/bin/env bash
# Runs every sample binary (an executable with a .rcm manifest beside it)
# through rc-server, once per transport, and prints one PASS/FAIL line each and
# an "N passed, N failed" summary. Exit 0 only if all passed.
#
#   run-samples.sh --server BIN --samples DIR [--transports "tcp shm"]
#                  [--server-args "--test-device"]
# With RC_SERVER already set, no server is started: the samples run against it
# (that server must have been started with these samples' manifests).
set -uo pipefail
SERVER_BIN=""; SAMPLES=""; TRANSPORTS="tcp shm"; SERVER_ARGS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --server) SERVER_BIN="$2"; shift 2 ;;
    --samples) SAMPLES="$2"; shift 2 ;;
    --transports) TRANSPORTS="$2"; shift 2 ;;
    --server-args) SERVER_ARGS="$2"; shift 2 ;;
    *) echo "run-samples.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -d "$SAMPLES" ] || { echo "run-samples.sh: samples folder '$SAMPLES' not found" >&2; exit 2; }

mapfile -t BINARIES < <(find "$SAMPLES" -maxdepth 2 -type f -executable -name '*' \
  -exec test -f '{}.rcm' ';' -print | sort)
[ ${#BINARIES[@]} -gt 0 ] || { echo "run-samples.sh: no sample binaries with .rcm manifests in $SAMPLES" >&2; exit 2; }
MANIFEST_ARGS=()
for b in "${BINARIES[@]}"; do MANIFEST_ARGS+=(--manifest "$b.rcm"); done

passed=0; failed=0
run_all() { # $1: label
  for b in "${BINARIES[@]}"; do
    name="$(basename "$b")"
    start=$(date +%s%N)
    out="$(timeout 120 "$b" 2>&1)"; rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    if [ $rc -eq 0 ]; then
      passed=$((passed + 1)); echo "PASS  [$1] $name (${ms} ms)"
    else
      failed=$((failed + 1)); echo "FAIL  [$1] $name (exit $rc, ${ms} ms)"
      echo "$out" | tail -20 | sed 's/^/      | /'
    fi
  done
}

if [ -n "${RC_SERVER:-}" ]; then
  run_all "$RC_SERVER"
else
  [ -x "$SERVER_BIN" ] || { echo "run-samples.sh: rc-server '$SERVER_BIN' not executable" >&2; exit 2; }
  for t in $TRANSPORTS; do
    case "$t" in
      tcp) port=$(( 20000 + (RANDOM % 20000) )); url="tcp://127.0.0.1:$port" ;;
      shm) url="shm://rc-samples-$$" ;;
      *) echo "run-samples.sh: unknown transport $t" >&2; exit 2 ;;
    esac
    log="$(mktemp)"
    # shellcheck disable=SC2086
    "$SERVER_BIN" --listen "$url" "${MANIFEST_ARGS[@]}" $SERVER_ARGS >"$log" 2>&1 &
    spid=$!
    for _ in $(seq 100); do grep -q "listening on" "$log" && break; kill -0 $spid 2>/dev/null || break; sleep 0.1; done
    if ! grep -q "listening on" "$log"; then
      echo "FAIL  [$t] rc-server did not start:"; sed 's/^/      | /' "$log"
      failed=$((failed + ${#BINARIES[@]})); kill $spid 2>/dev/null; continue
    fi
    sed 's/^/server| /' "$log" | head -5 || true
    RC_SERVER="$url" run_all "$t"
    kill -INT $spid 2>/dev/null; wait $spid 2>/dev/null
    echo "server log tail ($t):"; tail -5 "$log" | sed 's/^/server| /'
    rm -f "$log"
  done
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
