#!/usr/bin/env bash
# Two programs with a kernel and a __constant__ of the same names and other
# types (twin_int, twin_double) against one rc-server holding both
# manifests: the server starts, and each program, alone and both at once,
# gets its own definitions and passes.
#   run-twins.sh RC_SERVER SAMPLES_DIR [--test-device]
set -uo pipefail
server="$1"; samples="$2"; device_arg="${3:-}"
log="$(mktemp)"; url="shm://rc-twins-$$"
# shellcheck disable=SC2086
"$server" --listen "$url" --manifest "$samples/twin_int.rcm" \
  --manifest "$samples/twin_double.rcm" $device_arg >"$log" 2>&1 &
spid=$!
trap 'kill -INT $spid 2>/dev/null; wait $spid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do
  grep -q "listening on" "$log" && break
  kill -0 $spid 2>/dev/null || break
  sleep 0.1
done
if ! grep -q "listening on" "$log"; then
  echo "FAIL: rc-server did not start with both manifests:"; cat "$log"; exit 1
fi
failed=0
run() { # $1: program; prints its output, fails unless it passed
  local out rc
  # shellcheck disable=SC2086
  out="$(RC_SERVER="$url" timeout 60 "$samples/$1" $device_arg 2>&1)"
  rc=$?
  echo "$out" | sed "s/^/$1| /"
  if [ $rc -ne 0 ] || ! grep -q "^PASS $1\$" <<<"$out"; then
    echo "FAIL: $1 (exit $rc)"; return 1
  fi
}
run twin_int || failed=1
run twin_double || failed=1
# At once: two sessions, each resolving the same IDs in its own manifest.
run twin_int & a=$!
run twin_double & b=$!
wait $a || failed=1
wait $b || failed=1
[ $failed -eq 0 ] && echo "both programs passed on one server"
exit $failed
