#!/usr/bin/env bash
# Runs the OffLoopback tests in a network namespace of their own, whose
# loopback interface also carries 192.0.2.1 (TEST-NET-1: documentation
# only, routed nowhere), so a client and server talk tcp over an address
# that is not loopback without anything leaving this machine. Exit 77
# (skipped) where no namespace can be made (no privilege).
set -u
tests="$1"
if ! unshare -n true 2>/dev/null || ! command -v ip >/dev/null; then
  echo "off_loopback.sh: cannot make a network namespace here; skipped"
  exit 77
fi
exec unshare -n bash -c '
  ip link set lo up && ip addr add 192.0.2.1/32 dev lo || exit 77
  RC_TEST_OFF_LOOPBACK_HOST=192.0.2.1 exec "$0" --gtest_filter="OffLoopback.*"
' "$tests"
