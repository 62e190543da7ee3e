#!/usr/bin/env bash
# rc-server starts with a shipped settings file: every key is one of its
# options, with a value of the right kind. The paths that do not exist
# here are overridden by flags (as an operator's SERVER_FLAGS would); the
# file is parsed, and refused by name, before they apply.
#   starts_with_config.sh RC_SERVER SETTINGS.toml
set -uo pipefail
server="$1" toml="$2"
dir="$(mktemp -d /tmp/rc-config.XXXXXX)"
trap 'rm -rf "$dir"' EXIT
"$server" keygen "$dir/key" > /dev/null || { echo "FAIL: rc-server keygen"; exit 1; }
echo "* sessions=4" > "$dir/quotas"
"$server" --config "$toml" --listen "shm://rc-config-$$" --auth-key-file "$dir/key" \
  --quotas "$dir/quotas" --metrics "$dir/metrics.json" --test-device \
  > "$dir/log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  grep -q "listening on" "$dir/log" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -INT "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
grep -q "listening on" "$dir/log" ||
  { echo "FAIL: rc-server did not start with $toml: $(cat "$dir/log")"; exit 1; }
echo "rc-server starts with $toml"
