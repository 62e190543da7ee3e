#!/usr/bin/env bash
# rc-server's metrics endpoint scraped by a real Prometheus (Debian's
# `prometheus`): rc-server --test-device --metrics-listen 127.0.0.1:0 serves
# a sample program; Prometheus scrapes it every second; its query API must
# then hold a non-zero rc_server_commands_total for Launch, which the
# program used. Exit 77 (skipped) only when
# prometheus is not installed. SERVER_ARGS go to rc-server as well
# (--isolation process: the supervisor serves the endpoint).
#   prometheus-scrape.sh RC_SERVER SAMPLES_DIR PROGRAM [SERVER_ARGS...]
set -uo pipefail
server="$1"; samples="$2"; program="$3"; shift 3
PROMETHEUS=prometheus
if ! command -v "$PROMETHEUS" >/dev/null; then
  echo "SKIP: prometheus is not installed (scripts/setup.sh installs it)"
  exit 77
fi
dir="$(mktemp -d)"; url="shm://rc-prom-$$"
spid=""; ppid_=""
cleanup() {
  [ -n "$ppid_" ] && kill "$ppid_" 2>/dev/null && wait "$ppid_" 2>/dev/null
  [ -n "$spid" ] && kill -INT "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- rc-server:"; cat "$dir/server.log"
         echo "--- prometheus (tail):"; tail -20 "$dir/prom.log" 2>/dev/null
         exit 1; }

"$server" --listen "$url" --manifest "$samples/$program.rcm" --test-device \
  --metrics-listen 127.0.0.1:0 "$@" >"$dir/server.log" 2>&1 &
spid=$!
target=""
for _ in $(seq 300); do
  target="$(sed -n 's|.*GET http://\([0-9.:]*\)/metrics.*|\1|p' "$dir/server.log" | head -1)"
  [ -n "$target" ] && grep -q "listening on" "$dir/server.log" && break
  kill -0 $spid 2>/dev/null || break
  sleep 0.1
done
[ -n "$target" ] || fail "rc-server did not log its metrics address"

# A free port for Prometheus' own web API.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
cat >"$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: rc-server
    static_configs:
      - targets: ['$target']
YML
"$PROMETHEUS" --config.file="$dir/prometheus.yml" \
  --storage.tsdb.path="$dir/data" --web.listen-address="127.0.0.1:$port" \
  >"$dir/prom.log" 2>&1 &
ppid_=$!

out="$(RC_SERVER="$url" timeout 60 "$samples/$program" --test-device 2>&1)" ||
  fail "$program failed: $out"
grep -q "^PASS $program\$" <<<"$out" || fail "$program did not pass: $out"

# The value Prometheus holds for one command type ("" until scraped).
value_of() {
  python3 - "$port" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
port, ctype = sys.argv[1], sys.argv[2]
q = urllib.parse.quote('rc_server_commands_total{type="%s"}' % ctype)
try:
    with urllib.request.urlopen(
            "http://127.0.0.1:%s/api/v1/query?query=%s" % (port, q),
            timeout=5) as r:
        doc = json.load(r)
except OSError:
    sys.exit(0)
for series in doc.get("data", {}).get("result", []):
    print(series["value"][1])
PY
}
for ctype in Launch; do
  v=""
  for _ in $(seq 60); do
    v="$(value_of "$ctype")"
    [ -n "$v" ] && [ "$v" != 0 ] && break
    sleep 0.5
  done
  [ -n "$v" ] && [ "$v" != 0 ] ||
    fail "Prometheus holds no non-zero rc_server_commands_total{type=\"$ctype\"} (got '$v')"
  echo "Prometheus: rc_server_commands_total{type=\"$ctype\"} = $v"
done
echo "PASS: Prometheus scraped rc-server's metrics"
