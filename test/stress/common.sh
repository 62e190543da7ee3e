# Sourced by the stress scripts beside it: where the build is, and an
# rc-server --test-device to run them against.
#   RC_BUILD_DIR  holds bin/rc-server and the stress programs (default build/)
#   MANIFEST  any manifest for rc-server to load (default
#             BUILD/samples/vector_add.rcm, made by ctest -R samples_build)
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${RC_BUILD_DIR:-$ROOT/build}"
SERVER="$BUILD/bin/rc-server"
CLIENT="$BUILD/bin/rc_stress_client"
PEERS="$BUILD/bin/rc_stress_peers"
MANIFEST="${MANIFEST:-$BUILD/samples/vector_add.rcm}"

# Exits 2 naming the first of the given files that is missing.
need() {
  local f
  for f in "$@"; do
    [ -e "$f" ] || { echo "$(basename "$0"): $f is missing (build the" \
      "tests; the manifest comes from ctest -R samples_build, or set" \
      "MANIFEST)" >&2; exit 2; }
  done
}

# A URL to listen on: a free tcp port on 127.0.0.1, or shm://NAME.
url_for() {
  if [ "$1" = tcp ]; then
    echo "tcp://127.0.0.1:$(python3 -c 'import socket; s=socket.socket();
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  else
    echo "shm://$2"
  fi
}

# start_server URL LOG [ARGS...]: rc-server in the background, once it
# listens; its pid in SERVER_PID.
start_server() {
  local url=$1 log=$2
  shift 2
  "$SERVER" --test-device --listen "$url" --manifest "$MANIFEST" "$@" \
    2>"$log" &
  SERVER_PID=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$log" && return 0
    sleep 0.1
  done
  echo "$(basename "$0"): rc-server did not start: $(cat "$log")" >&2
  exit 1
}

# for_transports WHICH USAGE: runs the script's `run` for tcp, shm or both
# and exits 1 if one of them failed (2 with USAGE for anything else).
for_transports() {
  local status=0
  case "$1" in
  tcp | shm) run "$1" || status=1 ;;
  both) run tcp || status=1; run shm || status=1 ;;
  *) echo "usage: $2" >&2; exit 2 ;;
  esac
  exit $status
}
