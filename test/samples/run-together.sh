#!/usr/bin/env bash
# Sample programs against one rc-server holding all their manifests: the
# server starts, and each program, alone and then all at once, passes.
#   run-together.sh RC_SERVER SAMPLES_DIR [--test-device] PROGRAM...
# twin_int and twin_double define a kernel and a __constant__ of the same
# names with other types (IDs scoped by manifest); occupancy holds the
# occupancy API to CUDA's calculator. With --test-device each program gets
# it too (the test device runs no kernels).
set -uo pipefail
server="$1"; samples="$2"; shift 2
device_arg=""
if [ "${1:-}" = --test-device ]; then device_arg="--test-device"; shift; fi
programs=("$@")
log="$(mktemp)"; url="shm://rc-together-$$"
manifests=()
for p in "${programs[@]}"; do manifests+=(--manifest "$samples/$p.rcm"); done
# shellcheck disable=SC2086
"$server" --listen "$url" "${manifests[@]}" $device_arg >"$log" 2>&1 &
spid=$!
trap 'kill -INT $spid 2>/dev/null; wait $spid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do
  grep -q "listening on" "$log" && break
  kill -0 $spid 2>/dev/null || break
  sleep 0.1
done
if ! grep -q "listening on" "$log"; then
  echo "FAIL: rc-server did not start with their manifests:"; cat "$log"; exit 1
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
for p in "${programs[@]}"; do run "$p" || failed=1; done
# At once: a session each, each resolving its IDs in its own manifest.
pids=()
for p in "${programs[@]}"; do run "$p" & pids+=($!); done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ $failed -eq 0 ] && echo "all passed on one server"
exit $failed
