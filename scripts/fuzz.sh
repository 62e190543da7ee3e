#!/usr/bin/env bash
# Builds the libFuzzer harnesses (test/fuzz, docs/fuzzing.md) in the
# sanitizer build, build-sanitize/ (scripts/sanitize.sh: clang 19, ASan +
# UBSan, RC_FUZZERS=ON adds libFuzzer's coverage), replays
# each harness's committed inputs (test/fuzz/regressions/<harness>/: every
# reproducer found so far; test/fuzz/corpus/<harness>/: seeds), then fuzzes
# each for a bounded time. Fails on any crash, leak, timeout or sanitizer
# report, naming the reproducer. New inputs go to build-sanitize/corpus/, never
# into the committed corpus (--merge does that, minimised).
#
#   scripts/fuzz.sh [--seconds N] [harness ...]   replay + N s each (60)
#   scripts/fuzz.sh --replay [harness ...]         replay only
#   scripts/fuzz.sh --merge [harness ...]          fold build-sanitize/corpus/<h>
#                                                  into test/fuzz/corpus/<h>
#   scripts/fuzz.sh --import DIR                   session recordings made with
#                                                  RC_DEV_SERVER_RECORD_DIR=DIR:
#                                                  seeds + their manifests
#   scripts/fuzz.sh --live [--seconds N]           rc_live_fuzz, tcp and shm,
#                                                  against the ASan rc-server
# --no-build uses build-sanitize/ as it is (several runs at once share it).
# Harnesses: session frame_hello manifest fragments fatbin gguf.
# RC_SANITIZE_BUILD_DIR overrides build-sanitize/; RC_FUZZ_FLAGS adds
# libFuzzer flags.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${RC_SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}"
PLAIN="${RC_BUILD_DIR:-$ROOT/build}"
CORPUS="$ROOT/test/fuzz/corpus"
REGRESSIONS="$ROOT/test/fuzz/regressions"
ALL=(session frame_hello manifest fragments fatbin gguf)
die() { echo "fuzz.sh: error: $*" >&2; exit 1; }
say() { echo "fuzz.sh: $*"; }

mode=fuzz seconds=60 import="" harnesses=() nobuild=0
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --replay) mode=replay; shift ;;
    --merge) mode=merge; shift ;;
    --live) mode=live; shift ;;
    --no-build) nobuild=1; shift ;;
    --import) mode=import; import="$2"; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
((${#harnesses[@]})) || harnesses=("${ALL[@]}")
for h in "${harnesses[@]}"; do
  [[ " ${ALL[*]} " == *" $h "* ]] || die "no harness '$h' (have: ${ALL[*]})"
done

# Inputs: sessions up to 16 KiB (a recording is cut after whole messages:
# the first 16 KiB of the suites' sessions give 99 % of the features of
# their first 64 KiB in 57 % of the bytes), files (manifests, fatbins) up
# to 1 MiB. Memory limits sized for two harnesses at once on an 8 GiB
# machine: a batch may legally ask for 1 GiB of read-back.
max_len() { [ "$1" = session ] && echo 16384 || echo 1048576; }
LIBFUZZER_FLAGS=(-rss_limit_mb=4096 -malloc_limit_mb=4096 -timeout=30
  -print_final_stats=1 ${RC_FUZZ_FLAGS:-})
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$ROOT/test/fuzz/lsan.supp}"

build() {
  ((nobuild)) && return 0
  bash "$ROOT/scripts/sanitize.sh" --build-only rc_fuzzers rc-server "$@"
}

# The last coverage line and the executions of a libFuzzer log.
summary() {
  local log="$1" cov execs
  cov="$(grep -E "^#[0-9]+[[:space:]]+(DONE|INITED)" "$log" | tail -1 || true)"
  execs="$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)"
  echo "${execs:-?} executions; ${cov:-no coverage line}"
}

fail_with() { # harness log
  local h="$1" log="$2" crash
  crash="$(grep -oE "(crash|leak|timeout|oom|slow-unit)-[0-9a-f]+" "$log" |
    tail -1 || true)"
  grep -E "ERROR: |runtime error:|SUMMARY:" "$log" | head -5 >&2 || true
  die "$h: failed (log $log${crash:+; reproducer $BUILD/artifacts/$h/$crash});" \
    "once fixed, add the reproducer to test/fuzz/corpus/$h/"
}

# The committed input folders of a harness (regressions first).
inputs() {
  local d
  for d in "$REGRESSIONS/$1" "$CORPUS/$1"; do [ -d "$d" ] && echo "$d"; done
}

replay() {
  local h="$1" dirs
  local log="$BUILD/logs/$h-replay.log"
  mkdir -p "$BUILD/logs" "$BUILD/artifacts/$h"
  mapfile -t dirs < <(inputs "$h")
  ((${#dirs[@]})) || die "$h: no inputs under $CORPUS/$h"
  "$BUILD/bin/rc_fuzz_$h" -runs=0 -max_len="$(max_len "$h")" \
    -artifact_prefix="$BUILD/artifacts/$h/" "${LIBFUZZER_FLAGS[@]}" \
    "${dirs[@]}" >"$log" 2>&1 || fail_with "$h" "$log"
  say "$h: replayed $(find "${dirs[@]}" -type f | wc -l) committed inputs: $(summary "$log")"
}

fuzz() {
  local h="$1" dirs
  local log="$BUILD/logs/$h-fuzz.log"
  mkdir -p "$BUILD/corpus/$h" "$BUILD/artifacts/$h"
  mapfile -t dirs < <(inputs "$h")
  "$BUILD/bin/rc_fuzz_$h" -max_total_time="$seconds" \
    -max_len="$(max_len "$h")" -artifact_prefix="$BUILD/artifacts/$h/" \
    "${LIBFUZZER_FLAGS[@]}" "$BUILD/corpus/$h" "${dirs[@]}" >"$log" 2>&1 ||
    fail_with "$h" "$log"
  say "$h: fuzzed ${seconds} s: $(summary "$log")"
}

# The committed corpus becomes the smallest set of its inputs and the new
# ones that covers all their features (-set_cover_merge); regressions stay
# as they are.
merge() {
  local h="$1"
  local log="$BUILD/logs/$h-merge.log" out="$BUILD/merged/$h"
  mkdir -p "$CORPUS/$h" "$BUILD/corpus/$h"
  rm -rf "$out" && mkdir -p "$out"
  "$BUILD/bin/rc_fuzz_$h" -set_cover_merge=1 -max_len="$(max_len "$h")" \
    "${LIBFUZZER_FLAGS[@]}" "$out" "$CORPUS/$h" "$BUILD/corpus/$h" \
    >"$log" 2>&1 || fail_with "$h" "$log"
  rm -f "$CORPUS/$h"/* && cp "$out"/* "$CORPUS/$h"/
  say "$h: corpus now $(find "$CORPUS/$h" -type f | wc -l) files," \
    "$(cat "$CORPUS/$h"/* | wc -c) bytes"
}

# Recordings become session seeds (cut to max_len after whole messages) and
# the manifests they announced join test/fuzz/manifests/ (those over 1 MiB
# are left out with a message: commit a copy without device code, named by
# the original's hash, instead).
import_recordings() {
  local dir="$1" n=0 f size
  [ -d "$dir" ] || die "no recording directory $dir"
  mkdir -p "$BUILD/corpus/session"
  for f in "$dir"/*.rcm; do
    [ -e "$f" ] || continue
    size="$(stat -c %s "$f")"
    if ((size > 1048576)); then
      say "$(basename "$f"): $size bytes, not copied (see docs/fuzzing.md)"
    elif [ ! -e "$ROOT/test/fuzz/manifests/$(basename "$f")" ]; then
      cp "$f" "$ROOT/test/fuzz/manifests/"
    fi
  done
  for f in "$dir"/*.rcrec; do
    [ -e "$f" ] || continue
    python3 - "$f" "$BUILD/corpus/session/$(basename "$f")" "$(max_len session)" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
limit, at, end = int(sys.argv[3]), 0, 0
while at + 4 <= len(data):
    n = struct.unpack_from("<I", data, at)[0]
    if at + 4 + n > len(data) or at + 4 + n > limit:
        break
    at += 4 + n
    end = at
open(sys.argv[2], "wb").write(data[:end])
EOF
    n=$((n + 1))
  done
  say "imported $n recordings from $dir"
}

live() {
  local t manifests=() log
  ((nobuild)) || ninja -C "$PLAIN" rc_live_fuzz >/dev/null
  for m in "$ROOT"/test/fuzz/manifests/*.rcm; do manifests+=(--manifest "$m"); done
  mkdir -p "$BUILD/logs" "$BUILD/artifacts/live"
  for t in tcp shm; do
    log="$BUILD/logs/live-$t.log"
    "$PLAIN/bin/rc_live_fuzz" --rc-server "$BUILD/bin/rc-server" \
      --transport "$t" --seconds "$seconds" "${manifests[@]}" \
      --seeds "$CORPUS/session" --log "$BUILD/logs/live-$t-server.log" \
      --crash-dir "$BUILD/artifacts/live" | tee "$log"
    [ "${PIPESTATUS[0]}" = 0 ] || die "live fuzzing over $t failed ($log)"
  done
}

case "$mode" in
  import) build; import_recordings "$import"; harnesses=(session); merge session ;;
  merge) build; for h in "${harnesses[@]}"; do merge "$h"; done ;;
  replay) build; for h in "${harnesses[@]}"; do replay "$h"; done ;;
  live) build; live ;;
  fuzz)
    build
    for h in "${harnesses[@]}"; do replay "$h"; done
    for h in "${harnesses[@]}"; do fuzz "$h"; done ;;
esac
