#!/usr/bin/env bash
# Three hosts on one machine: network namespaces joined by a bridge in a
# fourth (the switch), addresses only inside them (10.250.0.0/24), so
# rc-server and its clients talk over real off-loopback tcp (keys
# required, every connection sealed) as they do between machines
# (docs/design/pool.md). Two server hosts run rc-server --test-device,
# the client host runs programs against each:
#   - a sample passes against either server;
#   - a server killed in the middle of a client's run fails that client
#     with an error naming that server, and the other server's clients
#     go on being served.
#   netns_hosts.sh RC_SERVER SAMPLES_DIR COPY_STRESS
# Needs root and iproute2 (scripts/setup.sh); exits 77 without them.
set -euo pipefail
server="$1" samples="$2" stress="$3"

fail() { echo "netns_hosts: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "netns_hosts: needs root for network namespaces"; exit 77; }
command -v ip > /dev/null || { echo "netns_hosts: no ip (iproute2)"; exit 77; }
for f in "$server" "$samples/twin_int" "$stress"; do
  [ -x "$f" ] || fail "$f is not built"
done

tag="rc$$"   # namespace and link names of this run: at most 15 characters
dir="$(mktemp -d /tmp/rc-netns.XXXXXX)"
declare -A addr=([c]=10.250.0.10 [a]=10.250.0.11 [b]=10.250.0.12)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for h in sw c a b; do ip netns del "$tag$h" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
in_ns() { local h="$1"; shift; ip netns exec "$tag$h" "$@"; }

# The switch: a bridge in a namespace of its own; each host a namespace
# with one end of a veth pair, the other end on the bridge.
ip netns add "${tag}sw"
in_ns sw ip link add br0 type bridge
in_ns sw ip link set br0 up
for h in c a b; do
  ip netns add "$tag$h"
  in_ns "$h" ip link set lo up
  ip link add "$tag$h" netns "$tag$h" type veth peer name "p$h" netns "${tag}sw"
  in_ns "$h" ip addr add "${addr[$h]}/24" dev "$tag$h"
  in_ns "$h" ip link set "$tag$h" up
  in_ns sw ip link set "p$h" master br0
  in_ns sw ip link set "p$h" up
done

"$server" keygen "$dir/key" > /dev/null
declare -A url
for h in a b; do
  url[$h]="tcp://${addr[$h]}:7070"
  # ip netns exec runs rc-server in its own place (exec): $! is the server.
  ip netns exec "$tag$h" "$server" --listen "${url[$h]}" --auth-key-file "$dir/key" \
    --manifest "$samples/twin_int.rcm" --test-device --log-level debug \
    > "$dir/server-$h.log" 2>&1 &
  pids+=($!)
  eval "pid_$h=$!"
done
for h in a b; do
  for _ in $(seq 200); do grep -q "listening on" "$dir/server-$h.log" && break; sleep 0.05; done
  grep -q "listening on" "$dir/server-$h.log" || { cat "$dir/server-$h.log"; fail "rc-server on host $h did not start"; }
done

client() { # host's url, then the command
  local u="$1"; shift
  in_ns c env RC_SERVER="$u" RC_AUTH_KEY_FILE="$dir/key" "$@"
}

# A sample against each server host, from the client host.
for h in a b; do
  out="$(client "${url[$h]}" "$samples/twin_int" --test-device 2>&1)" ||
    fail "twin_int against host $h: $out"
  grep -qx "PASS twin_int" <<< "$out" || fail "twin_int against host $h: $out"
  grep -q "connection sealed" "$dir/server-$h.log" ||
    fail "host $h's session was not sealed (off-loopback tcp must be)"
done
echo "netns_hosts: a sample passed against both server hosts, sealed"

# Host a dies in the middle of a client's run.
opened="$(grep -c session_opened "$dir/server-a.log" || true)"
ip netns exec "${tag}c" env RC_SERVER="${url[a]}" RC_AUTH_KEY_FILE="$dir/key" \
  "$stress" 1000000 1 > "$dir/stress.out" 2>&1 &
stress_pid=$!
pids+=($stress_pid)
# Its session is open and copying (the server logs each session opened:
# one more than before it started).
for _ in $(seq 400); do
  [ "$(grep -c session_opened "$dir/server-a.log" || true)" -gt "$opened" ] && break
  sleep 0.05
done
sleep 0.5
kill -0 "$stress_pid" 2> /dev/null ||
  { cat "$dir/stress.out"; fail "the client ended before host a was killed"; }
kill -9 "$pid_a"
wait "$pid_a" 2> /dev/null || true # reaped here: no "Killed" line from bash
for _ in $(seq 600); do kill -0 "$stress_pid" 2> /dev/null || break; sleep 0.1; done
kill -0 "$stress_pid" 2> /dev/null &&
  fail "the client did not end within 60 s of its server's death"
status=0
wait "$stress_pid" || status=$?
[ "$status" != 0 ] || fail "the client of the killed server exited 0"
grep -q "lost the connection to the GPU server RC_SERVER=${url[a]} " "$dir/stress.out" ||
  { cat "$dir/stress.out" >&2; fail "the client's error does not name its server ${url[a]}"; }
echo "netns_hosts: the killed server's client failed naming it: $(grep -m1 "RC_SERVER=${url[a]}" "$dir/stress.out")"

out="$(client "${url[b]}" "$samples/twin_int" --test-device 2>&1)" ||
  fail "host b after host a died: $out"
grep -qx "PASS twin_int" <<< "$out" || fail "host b after host a died: $out"
echo "netns_hosts: host b still serves"
echo "netns_hosts: PASS"
